import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createAuthenticator, unauthorized } from '../../../adapters/http/auth.js';
import { KeyTable, sha256 } from '../../../adapters/access/keyTable.js';

const TOKEN = 's3cr3t-T0ken_value';
const KEY_SECRET = 'fgk_dashboard-secret';

test('without a token or keys authentication is off', () => {
  const auth = createAuthenticator({});
  assert.is(auth.enabled, false);
  assert.is(auth.authenticate(undefined), undefined);
});

test('API_AUTH_TOKEN is the key `token` with every scope; the scheme is case-insensitive', () => {
  const auth = createAuthenticator({ authToken: TOKEN });
  for (const header of [`Bearer ${TOKEN}`, `bearer ${TOKEN}`, `BEARER  ${TOKEN}`]) {
    const key = auth.authenticate(header);
    assert.is(key?.id, 'token', header);
    assert.equal(key?.scopes, ['read', 'start', 'control', 'admin']);
  }
});

test('keys and the token live side by side: each secret finds its own key', () => {
  const keys = new KeyTable([{ key: { id: 'dashboard', scopes: ['read'] }, digest: sha256(KEY_SECRET) }]);
  const auth = createAuthenticator({ authToken: TOKEN, accessKeys: keys });
  assert.is(auth.authenticate(`Bearer ${KEY_SECRET}`)?.id, 'dashboard');
  assert.is(auth.authenticate(`Bearer ${TOKEN}`)?.id, 'token');
  assert.is(auth.authenticate('Bearer fgk_other'), undefined);
});

test('missing, empty, wrong scheme, wrong, prefix, longer, two tokens, whitespace and repeated headers are refused', () => {
  const keys = new KeyTable([{ key: { id: 'dashboard', scopes: ['read'] }, digest: sha256(KEY_SECRET) }]);
  const auth = createAuthenticator({ authToken: TOKEN, accessKeys: keys });
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
    `Bearer ${KEY_SECRET} ${TOKEN}`,
    `Bearer ${KEY_SECRET.slice(0, 4)} ${KEY_SECRET.slice(4)}`,
    `Bearer ${KEY_SECRET.slice(0, 4)}\t${KEY_SECRET.slice(4)}`,
    `Bearer ${TOKEN.toUpperCase()}`,
    `Bearer ${'a'.repeat(100_000)}`,
    `Bearer\t${TOKEN}`,
    [`Bearer ${TOKEN}`, `Bearer ${TOKEN}`],
    [`Bearer ${KEY_SECRET}`, `Bearer ${TOKEN}`],
  ];
  for (const header of refused) assert.is(auth.authenticate(header), undefined, JSON.stringify(header)?.slice(0, 60));
});

test('the 401 error says nothing about which part was wrong', () => {
  const error = unauthorized();
  assert.is(error.name, 'UnauthorizedError');
  assert.not.match(error.message, /scheme|length|token value|expected|expired|scope/i);
});

test.run();
