import { test } from 'uvu';
import * as assert from 'uvu/assert';
import * as crypto from 'node:crypto';
import { createBearerAuthenticator, unauthorized } from '../../../adapters/http/auth.js';

const TOKEN = 's3cr3t-T0ken_value';

test('without a token every request is authorized', () => {
  const auth = createBearerAuthenticator(undefined);
  assert.is(auth.enabled, false);
  assert.ok(auth.isAuthorized(undefined));
});

test('exactly `Bearer <token>` is accepted; the scheme is case-insensitive', () => {
  const auth = createBearerAuthenticator(TOKEN);
  assert.ok(auth.isAuthorized(`Bearer ${TOKEN}`));
  assert.ok(auth.isAuthorized(`bearer ${TOKEN}`));
  assert.ok(auth.isAuthorized(`BEARER  ${TOKEN}`));
});

test('missing, empty, wrong scheme, wrong, prefix, longer and repeated values are refused', () => {
  const auth = createBearerAuthenticator(TOKEN);
  const refused = [
    undefined,
    '',
    'Bearer',
    'Bearer ',
    TOKEN,
    `Basic ${Buffer.from(`user:${TOKEN}`).toString('base64')}`,
    `Token ${TOKEN}`,
    `Bearer ${TOKEN.slice(0, -1)}`,
    `Bearer ${TOKEN}x`,
    `Bearer ${TOKEN} ${TOKEN}`,
    `Bearer ${TOKEN.toUpperCase()}`,
    `Bearer ${'a'.repeat(100_000)}`,
    `Bearer\t${TOKEN}`,
    [`Bearer ${TOKEN}`, `Bearer ${TOKEN}`],
  ];
  for (const header of refused) assert.is(auth.isAuthorized(header), false, JSON.stringify(header)?.slice(0, 60));
});

test('every header, malformed or not, goes through one 32-byte constant-time comparison', () => {
  const compared: [number, number][] = [];
  const auth = createBearerAuthenticator(TOKEN, (a, b) => {
    compared.push([a.byteLength, b.byteLength]);
    return crypto.timingSafeEqual(a, b);
  });
  const headers = [undefined, '', 'Basic x', `Bearer ${TOKEN}`, `Bearer ${'b'.repeat(5000)}`, ['a', 'b']];
  const answers = headers.map((header) => auth.isAuthorized(header));
  assert.equal(answers, [false, false, false, true, false, false]);
  assert.equal(compared, Array(headers.length).fill([32, 32]));
});

test('the 401 error says nothing about which part was wrong', () => {
  const error = unauthorized();
  assert.is(error.name, 'UnauthorizedError');
  assert.not.match(error.message, /scheme|length|token value|expected/i);
});

test.run();
