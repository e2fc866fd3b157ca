import { test } from 'uvu';
import { readFileSync } from 'node:fs';
import * as assert from 'uvu/assert';
import { AccessKeyFileError, parseKeyFile } from '../../../adapters/access/keyFile.js';
import { authTokenKey, sha256Hex } from '../../../adapters/access/keyTable.js';

const SOURCE = 'API_KEYS_FILE /etc/flowgate/keys.json';
const HASH = sha256Hex('fgk_dashboard');
const OTHER_HASH = sha256Hex('fgk_ci');
const file = (...keys: unknown[]) => JSON.stringify({ keys });

function refusal(text: string, reserved?: ReturnType<typeof authTokenKey>): string {
  try {
    parseKeyFile(text, { source: SOURCE, reserved: reserved ? [reserved] : [] });
  } catch (error) {
    assert.instance(error, AccessKeyFileError);
    const message = (error as Error).message;
    assert.ok(message.startsWith(`${SOURCE}: `), message);
    assert.not.match(message, /\n/, 'one line');
    return message;
  }
  throw new Error(`accepted: ${text}`);
}

test('a well-formed file: ids, scopes, limits and expiry; hashes in either case', () => {
  const keys = parseKeyFile(
    file(
      { id: 'dashboard', sha256: HASH, scopes: ['read'] },
      { id: 'ci', sha256: OTHER_HASH.toUpperCase(), scopes: ['start', 'read'], catalogs: ['main'], workflows: ['summarise'], expiresAt: '2027-01-31T00:00:00Z' },
    ),
    { source: SOURCE },
  );
  assert.equal(keys.map(({ key }) => key.id), ['dashboard', 'ci']);
  assert.equal(keys[1]!.key, { id: 'ci', scopes: ['start', 'read'], catalogs: ['main'], workflows: ['summarise'], expiresAt: new Date('2027-01-31T00:00:00Z') });
  assert.is(keys[1]!.digest.toString('hex'), OTHER_HASH);
  assert.equal(parseKeyFile(file(), { source: SOURCE }), [], 'no keys: every key revoked');
});

test('every bad entry is refused in one line naming the entry', () => {
  const cases: [string, unknown[], RegExp][] = [
    ['duplicate id', [{ id: 'ci', sha256: HASH, scopes: ['read'] }, { id: 'ci', sha256: OTHER_HASH, scopes: ['read'] }], /keys\[1\] \(id "ci"\): id is already used by keys\[0\]/],
    ['same secret twice', [{ id: 'a', sha256: HASH, scopes: ['read'] }, { id: 'b', sha256: HASH.toUpperCase(), scopes: ['read'] }], /keys\[1\] \(id "b"\): sha256 is the same secret as keys\[0\]/],
    ['unknown scope', [{ id: 'ci', sha256: HASH, scopes: ['read', 'deploy'] }], /keys\[0\] \(id "ci"\): scopes\[1\] is "deploy", not a scope \(read, start, control, admin\)/],
    ['no scopes', [{ id: 'ci', sha256: HASH, scopes: [] }], /keys\[0\] \(id "ci"\): scopes is not empty/],
    ['missing scopes', [{ id: 'ci', sha256: HASH }], /keys\[0\] \(id "ci"\): scopes is missing/],
    ['malformed hash', [{ id: 'ci', sha256: 'abc123', scopes: ['read'] }], /keys\[0\] \(id "ci"\): sha256 is not a SHA-256 in hex/],
    ['hash of a secret written as is', [{ id: 'ci', sha256: 'fgk_' + 'a'.repeat(60), scopes: ['read'] }], /sha256 is not a SHA-256 in hex/],
    ['empty secret', [{ id: 'ci', sha256: sha256Hex(''), scopes: ['read'] }], /keys\[0\] \(id "ci"\): sha256 is the SHA-256 of an empty secret/],
    ['missing hash', [{ id: 'ci', scopes: ['read'] }], /keys\[0\] \(id "ci"\): sha256 is missing/],
    ['empty hash', [{ id: 'ci', sha256: '', scopes: ['read'] }], /keys\[0\] \(id "ci"\): sha256 is not a SHA-256/],
    ['missing id', [{ sha256: HASH, scopes: ['read'] }], /keys\[0\]: id is missing/],
    ['id with a space', [{ id: 'my key', sha256: HASH, scopes: ['read'] }], /keys\[0\] \(id "my key"\): id is 1 to 64/],
    ['a secret field', [{ id: 'ci', sha256: HASH, scopes: ['read'], secret: 'fgk_x' }], /keys\[0\] \(id "ci"\): the entry has unknown fields: secret/],
    ['empty catalogs', [{ id: 'ci', sha256: HASH, scopes: ['read'], catalogs: [] }], /catalogs is not empty/],
    ['bad expiry', [{ id: 'ci', sha256: HASH, scopes: ['read'], expiresAt: 'next week' }], /expiresAt is an ISO 8601/],
    ['not an object', ['ci'], /keys\[0\]: the entry is an object/],
  ];
  for (const [what, keys, expected] of cases) assert.match(refusal(file(...keys)), expected, what);
});

test('the file itself: not JSON, empty, no keys list', () => {
  assert.match(refusal(''), /not JSON \(it is empty\)/);
  assert.match(refusal('{"keys": ['), /not JSON \(it ends before its last value is complete\)/);
  assert.match(refusal('{"keys": [{ id: "ci" }]}'), /not JSON \(a syntax error at line 1, column 13\)/);
  // V8 quotes up to 20 characters of the text around some errors: none of a secret pasted into the file is repeated.
  for (const text of ['my-short-secret-42\n', '{"keys":[{"id":"ci","secret":fgk_AbCdEfGhIjKlMn,"scopes":["read"]}]}']) {
    const message = refusal(text);
    assert.match(message, /not JSON \(a character no JSON value has there/);
    assert.not.match(message, /short-secret|fgk_|AbCd/, message);
  }
  assert.match(refusal('[]'), /the file is an object \{ "keys": \[\.\.\.\] \}/);
  assert.match(refusal('{}'), /keys is missing/);
  assert.match(refusal('{"keys": [], "key": []}'), /the file has unknown fields: key/);
});

test("API_AUTH_TOKEN's id and secret are taken", () => {
  const reserved = authTokenKey('the-token');
  assert.match(refusal(file({ id: 'token', sha256: HASH, scopes: ['read'] }), reserved), /keys\[0\] \(id "token"\): id is already used by API_AUTH_TOKEN/);
  assert.match(refusal(file({ id: 'ci', sha256: sha256Hex('the-token'), scopes: ['read'] }), reserved), /sha256 is the same secret as API_AUTH_TOKEN's/);
});

test('no message holds a hash or a secret', () => {
  const message = refusal(file({ id: 'ci', sha256: HASH, scopes: ['deploy'] }));
  assert.not.ok(message.includes(HASH));
});

test("docs/security.md's example file is one the server takes, and its secrets are the ones it names", () => {
  const page = readFileSync(new URL('../../../docs/security.md', import.meta.url), 'utf8');
  const example = /```json\n([\s\S]*?)```/.exec(page)![1]!;
  const keys = parseKeyFile(example, { source: 'docs/security.md' });
  assert.equal(keys.map(({ key }) => key.id), ['dashboard', 'ci', 'operator']);
  for (const { key, digest } of keys) {
    assert.ok(page.includes(`\`fgk_example-${key.id}\``), key.id);
    assert.is(digest.toString('hex'), sha256Hex(`fgk_example-${key.id}`), key.id);
  }
});

test.run();
