import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createHttpApp } from '../../../adapters/http/app.js';
import { parseConfig, ConfigError } from '../../../composition/config.js';
import { RecordingApi, SequentialIds } from './fakeApi.js';
import { HTTP_APP_DEFAULTS } from '../../support/httpDefaults.js';
import { authed, call, harness, TOKEN } from './appHarness.js';
import { CapturingLogger } from '../../support/logLines.js';

/*
 * CORS (CORS_ORIGINS, docs/api.md): the headers of the Fetch standard's CORS protocol, on preflights and on actual
 * responses. tests/browser/cors.test.ts shows Chromium on another origin honouring them.
 */

const PAGE = 'https://app.example.test';
const OTHER = 'https://evil.example.test';
const preflightOf = (origin: string, method = 'POST', headers = 'authorization, content-type') => ({
  headers: { origin, 'access-control-request-method': method, 'access-control-request-headers': headers },
});
const corsHeaders = (headers: Record<string, string>) => Object.keys(headers).filter((name) => name.startsWith('access-control-'));

test('off by default: a preflight is what it always was (401 without a token, 405 with one), no CORS header anywhere', async () => {
  const h = harness({ authToken: TOKEN });
  const preflight = await call(h, 'OPTIONS', '/workflow', preflightOf(PAGE));
  assert.is(preflight.status, 401);
  assert.equal(corsHeaders(preflight.headers), []);
  const actual = await call(h, 'GET', '/health', { headers: { origin: PAGE } });
  assert.is(actual.status, 200);
  assert.equal(corsHeaders(actual.headers), []);
  assert.not.match(actual.headers['vary'] ?? '', /origin/i, 'the answer does not vary by Origin');
  assert.is(parseConfig({}).http.corsOrigins, undefined, 'CORS_ORIGINS is unset by default');
});

test('a listed origin: its preflight is 204 with the origin, methods, headers and max age, before authentication and routing', async () => {
  const h = harness({ authToken: TOKEN, corsOrigins: [PAGE, 'http://127.0.0.1:5173'] });
  for (const path of ['/workflow', '/workflow/a/runs/00000000-0000-4000-8000-000000000000/stop', '/no/such/path']) {
    const preflight = await call(h, 'OPTIONS', path, preflightOf(PAGE, 'PATCH', 'authorization, content-type, idempotency-key, last-event-id'));
    assert.is(preflight.status, 204, path);
    assert.is(preflight.text, '');
    assert.is(preflight.headers['access-control-allow-origin'], PAGE, 'the request\'s origin, never the whole list');
    assert.is(preflight.headers['access-control-allow-credentials'], 'true', 'a listed origin may send credentials');
    assert.match(preflight.headers['vary'] ?? '', /\bOrigin\b/);
    const methods = (preflight.headers['access-control-allow-methods'] ?? '').split(/,\s*/);
    // Every method of the route table: DELETE /schedules/{id} too.
    for (const method of ['GET', 'HEAD', 'POST', 'PATCH', 'DELETE']) assert.ok(methods.includes(method), `allows ${method}`);
    const allowed = (preflight.headers['access-control-allow-headers'] ?? '').toLowerCase().split(/,\s*/);
    for (const header of ['authorization', 'content-type', 'idempotency-key', 'last-event-id', 'x-request-id', 'traceparent']) assert.ok(allowed.includes(header), `allows ${header}`);
    assert.match(preflight.headers['access-control-max-age'] ?? '', /^[1-9]\d*$/);
    assert.ok(preflight.headers['x-request-id'], 'like every answer');
  }
  assert.equal(h.api.calls, [], 'a preflight reaches no use case');
  const logged = h.logger.entries.filter((line) => line.message === 'http request').at(-1)!;
  assert.is(logged.fields.method, 'OPTIONS');
  assert.is(logged.fields.status, 204, 'access-logged like any request');
});

test('an origin not listed gets no CORS header: its preflight is routed as any OPTIONS (401, 405), its answers carry none', async () => {
  const h = harness({ authToken: TOKEN, corsOrigins: [PAGE] });
  const refused = await call(h, 'OPTIONS', '/workflow', preflightOf(OTHER));
  assert.is(refused.status, 401);
  assert.equal(corsHeaders(refused.headers), []);
  const authenticated = await call(h, 'OPTIONS', '/workflow', { headers: { ...preflightOf(OTHER).headers, ...authed.headers } });
  assert.is(authenticated.status, 405);
  assert.equal(corsHeaders(authenticated.headers), []);
  for (const origin of [OTHER, `${PAGE}:8443`, 'http://app.example.test', 'null', `${PAGE}.evil.test`]) {
    const actual = await call(h, 'GET', '/workflow/wf-1/status', { headers: { ...authed.headers, origin } });
    assert.is(actual.status, 200, origin);
    assert.equal(corsHeaders(actual.headers), [], origin);
    assert.match(actual.headers['vary'] ?? '', /\bOrigin\b/, 'Vary: Origin all the same: a cache must not hand this answer to a listed origin');
  }
  const plain = await call(h, 'GET', '/health');
  assert.match(plain.headers['vary'] ?? '', /\bOrigin\b/, 'and without an Origin');
  // Not a preflight without Access-Control-Request-Method, nor without Origin.
  assert.is((await call(h, 'OPTIONS', '/workflow', { headers: { origin: PAGE, ...authed.headers } })).status, 405);
  assert.is((await call(h, 'OPTIONS', '/workflow', { headers: { 'access-control-request-method': 'POST', ...authed.headers } })).status, 405);
});

test('actual answers to a listed origin, errors included: Access-Control-Allow-Origin and the headers a script may read', async () => {
  const h = harness({ authToken: TOKEN, corsOrigins: [PAGE] });
  const cases: [string, string, number][] = [
    ['GET', '/workflow/wf-1/status', 200],
    ['PATCH', '/workflow/wf-1/stop', 200],
    ['GET', '/no/such/path', 404],
  ];
  for (const [method, path, status] of cases) {
    const answer = await call(h, method, path, { headers: { ...authed.headers, origin: PAGE } });
    assert.is(answer.status, status, `${method} ${path}`);
    assert.is(answer.headers['access-control-allow-origin'], PAGE);
    assert.is(answer.headers['access-control-allow-credentials'], 'true');
    assert.match(answer.headers['vary'] ?? '', /\bOrigin\b/);
    const exposed = (answer.headers['access-control-expose-headers'] ?? '').toLowerCase().split(/,\s*/);
    for (const header of ['location', 'retry-after', 'x-request-id', 'idempotency-expires', 'deprecation', 'sunset', 'link']) {
      assert.ok(exposed.includes(header), `${method} ${path} exposes ${header}`);
    }
    assert.is(answer.headers['access-control-allow-methods'], undefined, 'preflight headers only on preflights');
  }
  const unauthorized = await call(h, 'GET', '/workflow/wf-1/status', { headers: { origin: PAGE } });
  assert.is(unauthorized.status, 401);
  assert.is(unauthorized.headers['access-control-allow-origin'], PAGE, 'a 401 too: the page can read why');
});

test('`*`: any origin, answered `*`, never with credentials and without Vary', async () => {
  const h = harness({ authToken: TOKEN, corsOrigins: ['*'] });
  const preflight = await call(h, 'OPTIONS', '/workflow/run', preflightOf(OTHER));
  assert.is(preflight.status, 204);
  assert.is(preflight.headers['access-control-allow-origin'], '*');
  assert.is(preflight.headers['access-control-allow-credentials'], undefined);
  assert.is(preflight.headers['vary'], undefined);
  const actual = await call(h, 'GET', '/workflow/wf-1/status', { headers: { ...authed.headers, origin: OTHER } });
  assert.is(actual.headers['access-control-allow-origin'], '*');
  assert.is(actual.headers['access-control-allow-credentials'], undefined);
  assert.ok(actual.headers['access-control-expose-headers']);
  assert.is((await call(h, 'GET', '/health')).headers['access-control-allow-origin'], undefined, 'no Origin, nothing to answer');
});

test('corsOrigins: origins as browsers send them; anything else is refused naming what to write', () => {
  const make = (corsOrigins: string[]) =>
    createHttpApp({ api: new RecordingApi(), logger: new CapturingLogger(), ids: new SequentialIds(), ...HTTP_APP_DEFAULTS, corsOrigins });
  make([PAGE, 'http://127.0.0.1:5173', 'http://[::1]:8080', 'chrome-extension://abcdefghijklmnop']);
  make(['*']);
  make([]);
  const cases: [string[], RegExp][] = [
    [['https://app.example.test/'], /corsOrigins: "https:\/\/app\.example\.test\/" is not an origin; write https:\/\/app\.example\.test/],
    [['https://app.example.test/path'], /write https:\/\/app\.example\.test\b/],
    [['https://App.Example.test'], /write https:\/\/app\.example\.test\b/],
    [['https://app.example.test:443'], /write https:\/\/app\.example\.test\b/],
    [['app.example.test'], /"app\.example\.test" is not an origin \(scheme:\/\/host\[:port\]\)/],
    [['null'], /"null".*any page can claim/],
    [['*', PAGE], /`\*` stands alone/],
    [[''], /is not an origin/],
  ];
  for (const [origins, message] of cases) assert.throws(() => make(origins), message, JSON.stringify(origins));
});

test('CORS_ORIGINS: a comma-separated list (spaces allowed) or `*`, handed to the app; bad entries named in the configuration error', () => {
  const config = parseConfig({ CORS_ORIGINS: ' https://app.example.test , http://127.0.0.1:5173,' });
  assert.equal(config.http.corsOrigins, ['https://app.example.test', 'http://127.0.0.1:5173']);
  assert.equal(parseConfig({ CORS_ORIGINS: '*' }).http.corsOrigins, ['*']);
  assert.is(parseConfig({ CORS_ORIGINS: '' }).http.corsOrigins, undefined, 'empty is unset: off');
    try {
    parseConfig({ CORS_ORIGINS: 'https://app.example.test/, *' });
    assert.unreachable();
  } catch (error) {
    assert.instance(error, ConfigError);
    const problems = (error as ConfigError).problems;
    assert.ok(problems.some((line) => /^CORS_ORIGINS: "https:\/\/app\.example\.test\/" is not an origin; write https:\/\/app\.example\.test/.test(line)), problems.join('\n'));
    assert.ok(problems.some((line) => /^CORS_ORIGINS: `\*` stands alone/.test(line)), problems.join('\n'));
  }
});

test.run();
