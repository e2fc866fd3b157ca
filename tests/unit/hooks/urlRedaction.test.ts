import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { redactUrl } from '../../../core/domain/urlRedaction.js';

test('masks userinfo: username and password each become ***', () => {
  assert.is(redactUrl('https://user:pass@example.com/'), 'https://***:***@example.com/');
  assert.is(redactUrl('https://ghp_token@example.com/repo'), 'https://***@example.com/repo');
  assert.is(redactUrl('https://:hunter2@example.com/x'), 'https://:***@example.com/x');
});

test('a URL without secrets comes back unchanged', () => {
  assert.is(redactUrl('https://example.com/a/b?page=2&sort=asc'), 'https://example.com/a/b?page=2&sort=asc');
  assert.is(redactUrl('http://127.0.0.1:8080/'), 'http://127.0.0.1:8080/');
});

test('every listed secret-looking name has its value replaced with REDACTED', () => {
  const names = [
    'key',
    'token',
    'secret',
    'password',
    'passwd',
    'pwd',
    'auth',
    'signature',
    'sig',
    'credential',
    'session',
    'code',
    'access',
    'apikey',
    'api_key',
    'x-amz-signature',
    'x-amz-credential',
    'x-amz-security-token',
  ];
  for (const name of names) {
    assert.is(redactUrl(`https://h/p?${name}=s3cr3t&keep=1`), `https://h/p?${name}=REDACTED&keep=1`, name);
  }
});

test('names match case-insensitively and as substrings', () => {
  assert.is(
    redactUrl('https://h/?X-Amz-Signature=abc&X-Amz-Credential=AKIA%2F20240101&X-Amz-Security-Token=t&AccessToken=a&client_secret=c&sessionId=s'),
    'https://h/?X-Amz-Signature=REDACTED&X-Amz-Credential=REDACTED&X-Amz-Security-Token=REDACTED&AccessToken=REDACTED&client_secret=REDACTED&sessionId=REDACTED',
  );
  assert.is(redactUrl('https://h/?APIKEY=1&My_Api_Key=2&oauth_nonce=3'), 'https://h/?APIKEY=REDACTED&My_Api_Key=REDACTED&oauth_nonce=REDACTED');
});

test('a percent-encoded secret name is still recognised', () => {
  assert.is(redactUrl('https://h/?api%5Fkey=1&to%6Ben=2&a+token=3'), 'https://h/?api%5Fkey=REDACTED&to%6Ben=REDACTED&a+token=REDACTED');
});

test('other parameters keep their order, repeats and exact text', () => {
  assert.is(
    redactUrl('https://h/s?z=1&token=x&a=b%20c&q=a+b&a=2&empty=&flag&token=y'),
    'https://h/s?z=1&token=REDACTED&a=b%20c&q=a+b&a=2&empty=&flag&token=REDACTED',
  );
});

test('a secret name without "=" carries no value and stays', () => {
  assert.is(redactUrl('https://h/?token&x=1'), 'https://h/?token&x=1');
  assert.is(redactUrl('https://h/?token=&x=1'), 'https://h/?token=REDACTED&x=1');
});

test('a value holding "=" is replaced whole', () => {
  assert.is(redactUrl('https://h/?sig=a=b==&n=1'), 'https://h/?sig=REDACTED&n=1');
});

test('the fragment is dropped, with or without a query', () => {
  assert.is(redactUrl('https://h/p?x=1#access_token=abc'), 'https://h/p?x=1');
  assert.is(redactUrl('https://h/p#frag'), 'https://h/p');
  assert.is(redactUrl('https://u:p@h/p?token=t#f'), 'https://***:***@h/p?token=REDACTED');
});

test('a malformed escape in a name does not throw', () => {
  assert.is(redactUrl('https://h/?%E0%A4%A=1&sig=2'), 'https://h/?%E0%A4%A=1&sig=REDACTED');
});

test('a string that does not parse is never echoed', () => {
  for (const input of ['not a url', '/relative/path?token=abc', '', 'http://', 'https://user:pa ss@[bad/?token=abc']) {
    const output = redactUrl(input);
    assert.is(output, '[unparseable url]', JSON.stringify(input));
  }
});

test.run();
