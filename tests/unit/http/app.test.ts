import { test } from 'uvu';
import * as assert from 'uvu/assert';
import * as errors from '../../../core/domain/errors.js';
import { authed, call, harness, TOKEN } from './appHarness.js';
import { RUN_ID } from './fakeApi.js';
import { KeyTable, sha256 } from '../../../adapters/access/keyTable.js';

/* The app's cross-cutting behaviour: request ids, access log, auth, routing, validation, error mapping. */

// ---- request ids and access log -------------------------------------------------------------------------------

test('X-Request-Id: a valid incoming id is echoed, anything else replaced by a generated one', async () => {
  const h = harness();
  assert.is((await call(h, 'GET', '/health', { headers: { 'x-request-id': 'abc.DEF_1:2-3' } })).headers['x-request-id'], 'abc.DEF_1:2-3');
  for (const bad of ['', 'has space', 'ünï', 'x'.repeat(201), 'a/b', 'a\u0000']) {
    const id = (await call(h, 'GET', '/health', { headers: { 'x-request-id': bad } })).headers['x-request-id'];
    assert.match(id!, /^00000000-0000-4000-8000-\d{12}$/, JSON.stringify(bad));
  }
  assert.ok((await call(h, 'GET', '/nope')).headers['x-request-id'], 'errors carry it too');
});

test('one access-log line per request with method, path without query, status, duration, request id and the key id', async () => {
  const h = harness({ authToken: TOKEN });
  await call(h, 'GET', '/workflow/runs?limit=5&pageToken=secret-page', { headers: { authorization: `Bearer ${TOKEN}`, 'x-request-id': 'req-1' } });
  await call(h, 'GET', '/workflow/runs', { headers: { authorization: 'Bearer wrong-token-777' } });
  const lines = h.logger.entries.filter((entry) => entry.message === 'http request');
  assert.is(lines.length, 2);
  assert.equal(Object.keys(lines[0]!.fields).sort(), ['durationMs', 'key', 'method', 'path', 'requestId', 'status']);
  assert.equal({ ...lines[0]!.fields, durationMs: 0 }, { method: 'GET', path: '/workflow/runs', status: 200, durationMs: 0, requestId: 'req-1', key: 'token' });
  assert.is(lines[1]!.fields.key, undefined, 'a refused request names no key');
  assert.type(lines[0]!.fields.durationMs, 'number');
  assert.is(lines[1]!.fields.status, 401);
  assert.not.match(h.logger.text(), new RegExp(`${TOKEN}|wrong-token-777|secret-page|authorization`, 'i'));
});

// ---- auth, 404, 405 -------------------------------------------------------------------------------------------

test('API keys: a key without the route\'s scope is 403 before its body is read; the use cases act for the key', async () => {
  const dashboard = { id: 'dashboard', scopes: ['read'] as const };
  const h = harness({ accessKeys: new KeyTable([{ key: dashboard, digest: sha256('fgk_dash') }]) });
  const headers = { authorization: 'Bearer fgk_dash' };
  const refused = await call(h, 'POST', '/workflow/runs/terminate', { raw: '{not json', headers: { ...headers, 'content-type': 'application/json' } });
  assert.is(refused.status, 403);
  assert.is(refused.json.error, 'ForbiddenError');
  assert.match(refused.json.message, /"control" scope/);
  assert.is((await call(h, 'GET', '/metrics', { headers })).status, 403, 'metrics behind auth is admin');
  assert.is(h.api.calls.length, 0);
  assert.is((await call(h, 'GET', '/workflow/runs', { headers })).status, 200);
  assert.equal(h.api.boundKeys, [dashboard]);
  assert.is((await call(h, 'GET', '/workflow/runs', { headers: { authorization: 'Bearer fgk_other' } })).status, 401);
});

test('with a token: 401 + WWW-Authenticate without it; readiness, liveness and the document stay open', async () => {
  const h = harness({ authToken: TOKEN });
  const denied = await call(h, 'GET', '/workflow/list', { headers: { authorization: 'Bearer nope' } });
  assert.is(denied.status, 401);
  assert.is(denied.headers['www-authenticate'], 'Bearer');
  assert.equal(denied.json, { error: 'UnauthorizedError', message: 'Missing or invalid bearer token.' });
  assert.is(h.api.calls.length, 0);
  for (const path of ['/ready', '/health', '/openapi.json']) assert.is((await call(h, 'GET', path)).status, 200, path);
  assert.is((await call(h, 'GET', '/workflow/list', authed)).status, 200);
});

test('unauthenticated callers learn nothing about which paths exist', async () => {
  const h = harness({ authToken: TOKEN });
  assert.is((await call(h, 'GET', '/secret/admin')).status, 401);
  assert.is((await call(h, 'DELETE', '/workflow/list')).status, 401);
  assert.is((await call(h, 'POST', '/ready')).status, 401);
  assert.is((await call(h, 'GET', '/workflow/%zz/status')).status, 401);
});

test('unknown path 404 NotFoundError; known path, other method 405 with Allow', async () => {
  const h = harness();
  const missing = await call(h, 'GET', '/workflow/abc/nothing');
  assert.is(missing.status, 404);
  assert.is(missing.json.error, 'NotFoundError');
  const wrong = await call(h, 'DELETE', '/workflow/abc/runs/' + RUN_ID + '/stop');
  assert.is(wrong.status, 405);
  assert.is(wrong.json.error, 'MethodNotAllowedError');
  assert.is(wrong.headers['allow'], 'PATCH');
  assert.is((await call(h, 'POST', '/workflow/list')).headers['allow'], 'GET, HEAD', 'HEAD wherever GET is');
});

test('absolute request targets (fetch-style) route like origin-form ones', async () => {
  const h = harness();
  assert.is((await call(h, 'GET', 'http://example.test/workflow/runs?limit=3')).status, 200);
  assert.equal(h.api.lastCall('listRuns'), [{ limit: 3 }]);
});

// ---- path and query validation --------------------------------------------------------------------------------

test('ids are checked before the API is asked; encoded ids arrive decoded', async () => {
  const h = harness();
  const badRun = await call(h, 'GET', '/workflow/wf-1/runs/not-a-uuid/status');
  assert.is(badRun.status, 400);
  assert.is(badRun.json.error, 'ValidationError');
  assert.ok(badRun.json.issues.length > 0);
  assert.is((await call(h, 'GET', '/workflow/a%00b/status')).status, 400);
  assert.is((await call(h, 'GET', `/workflow/${'x'.repeat(1001)}/status`)).status, 400);
  assert.is((await call(h, 'GET', '/workflow//status')).status, 400);
  assert.is(h.api.calls.length, 0);
  assert.is((await call(h, 'GET', '/workflow/orders%2F2024%3Fq/status')).status, 200);
  assert.equal(h.api.lastCall('getStatus'), [{ workflowId: 'orders/2024?q' }]);
  assert.is((await call(h, 'GET', `/workflow/${'x'.repeat(1000)}/status`)).status, 200);
  const malformed = await call(h, 'GET', '/workflow/%E0%A4%A/status');
  assert.is(malformed.status, 400);
  assert.is(malformed.json.error, 'ValidationError');
});

test('run list query: defaults, bounds, the `continued` alias, repeated and unknown parameters', async () => {
  const h = harness();
  await call(h, 'GET', '/workflow/runs');
  assert.equal(h.api.lastCall('listRuns'), [{ limit: 100 }]);
  await call(h, 'GET', '/workflow/runs?status=continued&workflowName=echo&catalog=main&limit=1000&pageToken=t1');
  assert.equal(h.api.lastCall('listRuns'), [{ limit: 1000, workflowName: 'echo', catalog: 'main', status: 'continued_as_new', pageToken: 't1' }]);
  for (const query of ['limit=0', 'limit=1001', 'limit=abc', 'limit=1e2', 'status=done', 'limit=1&limit=2', 'pageToken=', 'limit=5&unknown=x']) {
    const answer = await call(h, 'GET', `/workflow/runs?${query}`);
    assert.is(answer.status, 400, query);
    assert.is(answer.json.error, 'ValidationError', query);
  }
  // The message says what is wrong: not "whole number" to -1, nor "expected string, received array" to a repeat.
  const messages: [string, string][] = [
    ['limit=-1', 'Invalid query parameter limit: must be a whole number from 1 to 1000, in plain digits'],
    ['limit=1e2', 'Invalid query parameter limit: must be a whole number from 1 to 1000, in plain digits'],
    ['limit=1&limit=2', 'Invalid query parameter limit: given more than once; a query parameter may appear once'],
    ['status=running&status=failed', 'Invalid query parameter status: given more than once; a query parameter may appear once'],
  ];
  for (const [query, message] of messages) assert.is((await call(h, 'GET', `/workflow/runs?${query}`)).json.message, message, query);
  assert.is((await call(h, 'GET', '/workflow/wf-1/history?pageSize=0x5')).json.message, 'Invalid query parameter pageSize: must be a whole number from 1 to 200, in plain digits');
});

test('result version: v2 by default, legacy with Deprecation: @<epoch seconds>, anything else 400', async () => {
  const h = harness();
  const current = await call(h, 'GET', '/workflow/wf-1/result');
  assert.is(current.json.v, '2');
  assert.is(current.headers['deprecation'], undefined);
  assert.equal(h.api.lastCall('getResult'), [{ workflowId: 'wf-1' }, '2']);
  const legacy = await call(h, 'GET', `/workflow/wf-1/runs/${RUN_ID}/result?v=legacy`);
  assert.is(legacy.json.v, undefined);
  assert.match(legacy.headers['deprecation'] ?? '', /^@\d+$/);
  assert.equal(h.api.lastCall('getResult'), [{ workflowId: 'wf-1', runId: RUN_ID }, 'legacy']);
  assert.is((await call(h, 'GET', '/workflow/wf-1/result?v=1')).status, 400);
});

// ---- errors from the API ----------------------------------------------------------------------------------------

test('API errors map through the table: 408 with workflowId, 503 + Retry-After, 424, 409', async () => {
  const h = harness();
  const cases: [() => Error, number, Record<string, string>][] = [
    [() => new errors.WorkflowExecutionTimedOutError('still running', { workflowId: 'slow', runId: RUN_ID }), 408, {}],
    [() => new errors.CatalogNotAvailableError('no worker for "main" yet', { reason: 'noLiveWorker', retryAfterSeconds: 3 }), 503, { 'retry-after': '3' }],
    [() => new errors.CatalogNotAvailableError('unknown catalog "zzz"', { reason: 'unknown' }), 404, {}],
    [() => new errors.UnsupportedWorkflowError('echo is not in catalog b'), 424, {}],
    [() => new errors.WorkflowAlreadyStartedError('already running', { workflowId: 'dup' }), 409, {}],
  ];
  for (const [makeError, status, headers] of cases) {
    h.api.overrides.runAndWait = async () => {
      throw makeError();
    };
    const answer = await call(h, 'POST', '/workflow/run', { json: { workflowName: 'echo', input: {} } });
    assert.is(answer.status, status);
    assert.is(answer.json.error, makeError().name);
    assert.is(answer.json.message, makeError().message);
    for (const [name, value] of Object.entries(headers)) assert.is(answer.headers[name], value);
  }
  h.api.overrides.runAndWait = async () => {
    throw new errors.WorkflowExecutionTimedOutError('still running', { workflowId: 'slow' });
  };
  assert.is((await call(h, 'POST', '/workflow/run', { json: { workflowName: 'echo', input: {} } })).json.workflowId, 'slow');
});

test('a 5xx: generic body, full cause chain logged with the request id', async () => {
  const h = harness();
  h.api.overrides.getStatus = async () => {
    throw new errors.EngineError('rpc error: Internal 10.1.2.3', { cause: new Error('socket hang up at 10.1.2.3') });
  };
  const answer = await call(h, 'GET', '/workflow/wf-1/status', { headers: { 'x-request-id': 'trace-5xx' } });
  assert.is(answer.status, 500);
  assert.equal(answer.json, { error: 'EngineError', message: 'The workflow engine failed to handle the request.' });
  assert.not.match(answer.text, /10\.1\.2\.3|stack|at /);
  const logged = h.logger.entries.find((entry) => entry.level === 'error')!;
  assert.is(logged.fields.requestId, 'trace-5xx');
  assert.is(logged.fields.status, 500);
  const chain = logged.fields.error as { message: string; stack?: string }[];
  assert.equal(chain.map((level) => level.message), ['rpc error: Internal 10.1.2.3', 'socket hang up at 10.1.2.3']);
  assert.ok(chain[0]!.stack);

  h.api.overrides.getStatus = async () => {
    throw new TypeError("Cannot read properties of undefined (reading 'x')");
  };
  const unknown = await call(h, 'GET', '/workflow/wf-1/status');
  assert.equal(unknown.json, { error: 'InternalError', message: 'Internal server error.' });
  h.api.overrides.getStatus = async () => {
    throw new errors.EngineUnavailableError('connection refused');
  };
  const unavailable = await call(h, 'GET', '/workflow/wf-1/status');
  assert.is(unavailable.status, 503);
  assert.ok(Number(unavailable.headers['retry-after']) >= 1);
});

test('4xx errors are not logged as errors', async () => {
  const h = harness();
  h.api.overrides.getStatus = async () => {
    throw new errors.WorkflowNotFoundError('no such workflow', { workflowId: 'x' });
  };
  await call(h, 'GET', '/workflow/x/status');
  assert.is(h.logger.entries.filter((entry) => entry.level === 'error').length, 0);
});

// ---- validateResponses -------------------------------------------------------------------------------------------

test('validateResponses: a response off its schema becomes a logged 500; a good one passes', async () => {
  const h = harness({ validateResponses: true });
  assert.is((await call(h, 'GET', '/workflow/wf-1/result')).status, 200);
  assert.is((await call(h, 'GET', '/workflow/wf-1/result?v=legacy')).status, 200);
  assert.is((await call(h, 'GET', '/workflow/wf-1/status')).status, 200);
  assert.is((await call(h, 'GET', '/workflow/runs')).status, 200);
  h.api.overrides.getResult = async (run) => ({ v: '2', workflowId: run.workflowId, runId: null, status: 'completed', input: null, output: 1, trace: null, error: null, extra: 1 }) as never;
  const drifted = await call(h, 'GET', '/workflow/wf-1/result');
  assert.is(drifted.status, 500);
  assert.match(JSON.stringify(h.logger.entries.find((entry) => entry.level === 'error')), /breaks its documented schema/);
  assert.is(harness().app.routes.length, 37);
});

test.run();
