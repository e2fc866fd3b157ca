import * as assert from 'uvu/assert';
import { uniqueId } from '../support/http.js';
import { contractSuite, expectError, expectStatus, http, wf } from '../support/contract.js';

/*
 * CORS_ORIGINS (docs/api.md, CORS) over real sockets: the headers of the Fetch standard's CORS protocol, on preflights
 * and on actual answers. What a browser makes of them: tests/browser/cors.test.ts.
 */
const TOKEN = 'cors-Secret-t0ken_93ab';
const auth = { authorization: `Bearer ${TOKEN}` };
const PAGE = 'http://127.0.0.1:5173';
const OTHER = 'http://127.0.0.1:5174';
const test = contractSuite('CORS', { API_AUTH_TOKEN: TOKEN, CORS_ORIGINS: `${PAGE}, https://app.example.test` });

const preflight = (origin: string, method: string, headers: string) => ({
  origin,
  'access-control-request-method': method,
  'access-control-request-headers': headers,
});

test('a listed origin: a preflight with Authorization and a JSON body is 204 with what the browser needs, no token asked', async ({ api }) => {
  const answer = await http(api, 'OPTIONS', '/workflow/run', { headers: preflight(PAGE, 'POST', 'authorization,content-type,idempotency-key') });
  assert.is(answer.status, 204);
  assert.is(answer.text, '');
  assert.is(answer.headers['content-length'], undefined, 'a 204 has no Content-Length');
  assert.is(answer.headers['access-control-allow-origin'], PAGE);
  assert.is(answer.headers['access-control-allow-credentials'], 'true');
  assert.match(answer.headers['vary'] ?? '', /\bOrigin\b/);
  assert.match(answer.headers['access-control-allow-methods'] ?? '', /\bPOST\b/);
  for (const header of ['authorization', 'content-type', 'idempotency-key', 'last-event-id']) {
    assert.ok((answer.headers['access-control-allow-headers'] ?? '').toLowerCase().split(/,\s*/).includes(header), `allows ${header}`);
  }
  assert.match(answer.headers['access-control-max-age'] ?? '', /^\d+$/);
});

test('a listed origin: the actual answers, a run and an error alike, may be read, with the headers a script needs', async ({ api }) => {
  const workflowId = uniqueId('cors-run');
  const run = await http(api, 'POST', '/workflow/run', {
    json: { workflowName: 'echo', workflowId, input: { message: 'from another origin' } },
    headers: { ...auth, origin: PAGE, 'idempotency-key': uniqueId('cors-key') },
  });
  expectStatus(run, 200);
  assert.is(run.headers['access-control-allow-origin'], PAGE);
  const exposed = (run.headers['access-control-expose-headers'] ?? '').toLowerCase().split(/,\s*/);
  for (const header of ['location', 'retry-after', 'x-request-id', 'idempotency-expires', 'deprecation', 'sunset', 'link']) assert.ok(exposed.includes(header), `exposes ${header}`);
  assert.ok(run.headers['idempotency-expires'], 'a header it exposes');

  const missingId = uniqueId('cors-missing');
  const missing = await http(api, 'GET', `${wf(missingId)}/status`, { headers: { ...auth, origin: PAGE } });
  expectError(missing, 404, 'WorkflowNotFoundError', { maybeWorkflowId: missingId });
  assert.is(missing.headers['access-control-allow-origin'], PAGE, 'an error too');
  const refused = await http(api, 'GET', `${wf(workflowId)}/status`, { headers: { origin: PAGE } });
  expectError(refused, 401, 'UnauthorizedError');
  assert.is(refused.headers['access-control-allow-origin'], PAGE, 'a 401 too');
});

test('an origin not listed: no CORS header on its preflight (routed as any OPTIONS) nor on its answers', async ({ api }) => {
  const answer = await http(api, 'OPTIONS', '/workflow/run', { headers: preflight(OTHER, 'POST', 'authorization,content-type') });
  expectError(answer, 401, 'UnauthorizedError');
  assert.equal(Object.keys(answer.headers).filter((name) => name.startsWith('access-control-')), []);
  const health = await http(api, 'GET', '/health', { headers: { origin: OTHER } });
  expectStatus(health, 200);
  assert.equal(Object.keys(health.headers).filter((name) => name.startsWith('access-control-')), []);
  assert.match(health.headers['vary'] ?? '', /\bOrigin\b/, 'Vary: Origin, so a cache keeps the answers apart');
});

test.run();
