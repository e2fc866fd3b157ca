import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { PageTokens } from '../../../adapters/pageTokens.js';
import { decodeTemporalToken, encodeTemporalToken } from '../../../adapters/temporal/engine/pageTokens.js';

const isPosition = (value: unknown): value is { r: string } => typeof (value as { r?: unknown })?.r === 'string';

function expectInvalid(tokens: PageTokens, scope: string, token: string): void {
  try {
    tokens.read(scope, token, isPosition);
  } catch (error) {
    assert.is((error as Error).name, 'ValidationError', token);
    assert.equal((error as { issues: { code: string }[] }).issues.map((issue) => issue.code), ['invalid_page_token']);
    return;
  }
  assert.unreachable(`accepted ${token}`);
}

test('a token reads back in its scope only', () => {
  const tokens = new PageTokens();
  const token = tokens.issue('scope-a', { r: 'abc' });
  assert.equal(tokens.read('scope-a', token, isPosition), { r: 'abc' });
  expectInvalid(tokens, 'scope-b', token);
});

test('forged, garbled, truncated and extended tokens are refused', () => {
  const tokens = new PageTokens();
  const token = tokens.issue('scope', { r: 'abc' });
  const middle = Math.floor(token.length / 2);
  const flipped = token.slice(0, middle) + (token[middle] === 'A' ? 'B' : 'A') + token.slice(middle + 1);
  const forged = Buffer.from(JSON.stringify({ offset: 1 })).toString('base64url');
  for (const bad of ['garbage', '', forged, flipped, `${token}x`, token.slice(0, -1), `${token}.more`, `${token}=`, `${token} `, token.slice(0, 20)]) {
    expectInvalid(tokens, 'scope', bad);
  }
  const wrongShape = tokens.issue('scope', { nope: 1 });
  expectInvalid(tokens, 'scope', wrongShape);
});

test('a shared secret makes tokens valid across engines; another key refuses them', () => {
  const secret = 'a-secret-of-enough-length';
  const token = new PageTokens(secret).issue('scope', { r: 'x' });
  assert.equal(new PageTokens(secret).read('scope', token, isPosition), { r: 'x' });
  expectInvalid(new PageTokens('another-secret-of-length'), 'scope', token);
  expectInvalid(new PageTokens(), 'scope', token);
});

test('a key given as bytes (the embedded durable store keeps one) signs as well, and only that key reads', () => {
  const key = new Uint8Array(32).fill(7);
  const token = new PageTokens(key).issue('scope', { r: 'x' });
  assert.equal(new PageTokens(new Uint8Array(32).fill(7)).read('scope', token, isPosition), { r: 'x' });
  expectInvalid(new PageTokens(new Uint8Array(32).fill(8)), 'scope', token);
});

test('a token shows nothing of what it holds, and two tokens of one position differ', () => {
  const tokens = new PageTokens();
  const first = tokens.issue('scope', { r: 'schedule-the-key-may-not-see' });
  const second = tokens.issue('scope', { r: 'schedule-the-key-may-not-see' });
  assert.is.not(first, second);
  for (const token of [first, second]) {
    assert.not.ok(Buffer.from(token, 'base64url').toString('latin1').includes('schedule'), token);
    assert.equal(tokens.read('scope', token, isPosition), { r: 'schedule-the-key-may-not-see' });
  }
});

test("Temporal's token bytes round-trip; an empty token is ''", () => {
  const bytes = new Uint8Array([0, 1, 250, 255, 42]);
  assert.equal(decodeTemporalToken(encodeTemporalToken(bytes)), bytes);
  assert.is(encodeTemporalToken(new Uint8Array()), '');
  assert.is(encodeTemporalToken(null), '');
  assert.is(decodeTemporalToken(''), undefined);
});

test.run();
