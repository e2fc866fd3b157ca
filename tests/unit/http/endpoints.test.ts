import { test } from 'uvu';
import * as assert from 'uvu/assert';
import * as errors from '../../../core/domain/errors.js';
import { call, harness, SUNSET, TOKEN } from './appHarness.js';
import { NEW_RUN_ID, RUN_ID } from './fakeApi.js';

/* What each endpoint hands the API and how its answer is framed: bodies, deprecated forms, history, system. */

// ---- bodies -----------------------------------------------------------------------------------------------------

test('POST /workflow/run: taskQueue folds into catalog, catalog wins, timeout defaults and bounds', async () => {
  const h = harness({ runTimeoutMaxSeconds: 60, defaultRunTimeoutSeconds: 7 });
  await call(h, 'POST', '/workflow/run', { json: { workflowName: 'echo', input: null, taskQueue: 'legacy-q' } });
  assert.equal(h.api.lastCall('runAndWait'), [{ workflowName: 'echo', input: null, catalog: 'legacy-q', timeoutSeconds: 7 }, '2', {}]);
  await call(h, 'POST', '/workflow/run?v=legacy', {
    json: { workflowName: 'echo', input: [1], workflowId: 'mine', catalog: 'main', taskQueue: 'ignored', timeout: 0.25 },
  });
  assert.equal(h.api.lastCall('runAndWait'), [{ workflowName: 'echo', input: [1], workflowId: 'mine', catalog: 'main', timeoutSeconds: 0.25 }, 'legacy', {}]);
  assert.is((await call(h, 'POST', '/workflow/run', { json: { workflowName: 'echo', input: 1, timeout: 60 } })).status, 200);
  for (const body of [
    { workflowName: 'echo', input: 1, timeout: 60.5 },
    { workflowName: 'echo', input: 1, timeout: 0 },
    { workflowName: 'echo', input: 1, timeout: -1 },
    { workflowName: 'echo', input: 1, timeout: '5' },
    { workflowName: 'echo' },
    { input: 1 },
    { workflowName: '', input: 1 },
    { workflowName: 'echo', input: 1, extra: true },
    { workflowName: 'echo', input: 1, workflowId: '' },
    [],
    'echo',
  ]) {
    const answer = await call(h, 'POST', '/workflow/run', { json: body });
    assert.is(answer.status, 400, JSON.stringify(body));
    assert.is(answer.json.error, 'ValidationError');
    assert.ok(Array.isArray(answer.json.issues) && answer.json.issues.length > 0);
  }
  const unknownKey = await call(h, 'POST', '/workflow/run', { json: { workflowName: 'echo', input: 1, tiemout: 5 } });
  assert.equal(unknownKey.json.issues[0].keys, ['tiemout']);
  assert.not.ok('input' in unknownKey.json.issues[0], 'issues never echo request data');
});

test('POST /workflow: input must be an object; answers the start view', async () => {
  const h = harness();
  const started = await call(h, 'POST', '/workflow', { json: { workflowName: 'echo', input: { a: 1 }, taskQueue: 'q' } });
  assert.equal(started.json, { workflowId: 'generated', runId: RUN_ID, status: 'running' });
  assert.equal(h.api.lastCall('start'), [{ workflowName: 'echo', input: { a: 1 }, catalog: 'q' }, {}]);
  for (const input of [[1], 'x', null, 3]) {
    assert.is((await call(h, 'POST', '/workflow', { json: { workflowName: 'echo', input } })).status, 400, JSON.stringify(input));
  }
});

test('transport-level body errors: 415, 413, bad JSON, missing body', async () => {
  const h = harness({ maxBodyBytes: 100 });
  const wrongType = await call(h, 'POST', '/workflow', { raw: '{}', headers: { 'content-type': 'text/plain' } });
  assert.is(wrongType.status, 415);
  assert.is(wrongType.json.error, 'UnsupportedMediaTypeError');
  const tooLarge = await call(h, 'POST', '/workflow', { json: { workflowName: 'echo', input: { pad: 'x'.repeat(200) } } });
  assert.is(tooLarge.status, 413);
  assert.is(tooLarge.json.error, 'PayloadTooLargeError');
  const badJson = await call(h, 'POST', '/workflow', { raw: '{"workflowName":', headers: { 'content-type': 'application/json' } });
  assert.is(badJson.status, 400);
  assert.is(badJson.json.error, 'ValidationError');
  assert.is((await call(h, 'POST', '/workflow', { headers: { 'content-type': 'application/json' } })).status, 400);
  assert.is(h.api.calls.length, 0);
});

test('terminate and stop accept an empty body; reset needs stepName; feedback needs an object payload', async () => {
  const h = harness();
  const pinned = `/workflow/wf-1/runs/${RUN_ID}`;
  assert.equal((await call(h, 'POST', `${pinned}/terminate`)).json, { terminated: true, workflowId: 'wf-1', runId: RUN_ID });
  assert.equal(h.api.lastCall('terminate'), [{ workflowId: 'wf-1', runId: RUN_ID }, undefined, {}]);
  await call(h, 'POST', `${pinned}/terminate`, { json: { reason: 'cleanup' } });
  assert.equal(h.api.lastCall('terminate'), [{ workflowId: 'wf-1', runId: RUN_ID }, 'cleanup', {}]);
  assert.is((await call(h, 'POST', `${pinned}/terminate`, { json: { reason: 5 } })).status, 400);
  assert.is((await call(h, 'PATCH', `${pinned}/stop`)).status, 200);
  assert.is((await call(h, 'PATCH', `${pinned}/stop`, { json: {} })).status, 200);
  assert.is((await call(h, 'PATCH', `${pinned}/stop`, { json: { force: true } })).status, 400);
  assert.is((await call(h, 'POST', `${pinned}/reset`)).status, 400);
  assert.is((await call(h, 'POST', `${pinned}/reset`, { json: { reason: 'x' } })).status, 400);
  const reset = await call(h, 'POST', `${pinned}/reset`, { json: { stepName: 'charge', reason: 'retry' } });
  assert.equal(reset.json, { workflowId: 'wf-1', runId: NEW_RUN_ID });
  assert.equal(h.api.lastCall('reset'), [{ workflowId: 'wf-1', runId: RUN_ID }, 'charge', 'retry', {}]);
  assert.equal((await call(h, 'POST', '/workflow/feedback', { json: { workflowId: 'wf-1', payload: { ok: true } } })).json, { workflowId: 'wf-1', runId: RUN_ID });
  assert.is((await call(h, 'POST', '/workflow/feedback', { json: { workflowId: 'wf-1', payload: 'yes' } })).status, 400);
});

test('rerun accepts an empty body and passes only the fields given; the bulk form passes its filter and dryRun', async () => {
  const h = harness();
  const pinned = `/workflow/wf-1/runs/${RUN_ID}`;
  const rerun = await call(h, 'POST', `${pinned}/rerun`);
  assert.equal(rerun.json, { workflowId: 'generated', runId: NEW_RUN_ID, status: 'running', rerunOf: { workflowId: 'wf-1', runId: RUN_ID } });
  assert.equal(h.api.lastCall('rerun'), [{ workflowId: 'wf-1', runId: RUN_ID }, {}, {}]);
  await call(h, 'POST', `${pinned}/rerun`, { json: { workflowId: 'wf-2', callbackUrl: 'https://example.com/done' } });
  assert.equal(h.api.lastCall('rerun'), [{ workflowId: 'wf-1', runId: RUN_ID }, { workflowId: 'wf-2', callbackUrl: 'https://example.com/done' }, {}]);
  const keyed = await call(h, 'POST', `${pinned}/rerun`, { headers: { 'idempotency-key': 'rerun-key-1' } });
  assert.equal(h.api.lastCall('rerun'), [{ workflowId: 'wf-1', runId: RUN_ID }, {}, { idempotencyKey: 'rerun-key-1' }]);
  assert.ok(keyed.headers['idempotency-expires'], 'a keyed rerun says until when its answer is kept');
  assert.is((await call(h, 'POST', `${pinned}/rerun`, { json: { input: {} } })).status, 400);
  assert.is((await call(h, 'POST', '/workflow/wf-1/runs/nope/rerun')).status, 400);
  const bulk = await call(h, 'POST', '/workflow/runs/rerun', { json: { workflowName: 'echo', status: 'continued' } });
  assert.is(bulk.status, 200);
  assert.equal(h.api.lastCall('bulkRerun'), [{ filter: { workflowName: 'echo', status: 'continued_as_new' }, dryRun: false }]);
  assert.is((await call(h, 'POST', '/workflow/runs/rerun', { json: { catalog: 'main', reason: 'x' } })).status, 400);
});

// ---- deprecated endpoints ---------------------------------------------------------------------------------------

test('deprecated stop: Deprecation, Sunset and a Link naming the run that was stopped', async () => {
  const h = harness();
  const answer = await call(h, 'PATCH', '/workflow/my%2Fwf/stop');
  assert.is(answer.status, 200);
  assert.match(answer.headers['deprecation'] ?? '', /^@\d+$/);
  assert.is(answer.headers['sunset'], SUNSET);
  assert.is(answer.headers['link'], `</workflow/my%2Fwf/runs/${RUN_ID}/stop>; rel="successor-version"`);
  assert.equal(h.api.lastCall('stop'), [{ workflowId: 'my/wf' }]);
});

test('deprecated endpoints send the headers on errors too; the Link falls back to the template', async () => {
  const h = harness();
  h.api.overrides.stop = async () => {
    throw new errors.WorkflowNotFoundError('no such workflow', { workflowId: 'ghost' });
  };
  const missing = await call(h, 'PATCH', '/workflow/ghost/stop');
  assert.is(missing.status, 404);
  assert.is(missing.json.workflowId, 'ghost');
  assert.match(missing.headers['deprecation'] ?? '', /^@\d+$/);
  assert.is(missing.headers['sunset'], SUNSET);
  assert.is(missing.headers['link'], '</workflow/{id}/runs/{rid}/stop>; rel="successor-version"');
  const invalid = await call(h, 'POST', '/workflow/ghost/reset', { json: {} });
  assert.is(invalid.status, 400);
  assert.is(invalid.headers['link'], '</workflow/{id}/runs/{rid}/reset>; rel="successor-version"');
});

test('deprecated reset: resets exactly the latest run as described, and the Link names it (not the NEW run)', async () => {
  const h = harness();
  const answer = await call(h, 'POST', '/workflow/wf-1/reset', { json: { stepName: 'charge' } });
  assert.is(answer.json.runId, NEW_RUN_ID);
  assert.equal(h.api.lastCall('getStatus'), [{ workflowId: 'wf-1' }]);
  assert.equal(h.api.lastCall('reset'), [{ workflowId: 'wf-1', runId: RUN_ID }, 'charge', undefined, {}]);
  assert.is(answer.headers['link'], `</workflow/wf-1/runs/${RUN_ID}/reset>; rel="successor-version"`);
  h.api.overrides.reset = async () => {
    throw new errors.StepNotFoundError('step never ran', { workflowId: 'wf-1', runId: RUN_ID });
  };
  const failed = await call(h, 'POST', '/workflow/wf-1/reset', { json: { stepName: 'nope' } });
  assert.is(failed.status, 404);
  assert.is(failed.headers['link'], `</workflow/wf-1/runs/${RUN_ID}/reset>; rel="successor-version"`);
  h.api.overrides.getStatus = async () => {
    throw new errors.WorkflowNotFoundError('no such workflow', { workflowId: 'wf-1' });
  };
  const unknown = await call(h, 'POST', '/workflow/wf-1/reset', { json: { stepName: 'charge' } });
  assert.is(unknown.status, 404);
  assert.is(unknown.headers['link'], '</workflow/{id}/runs/{rid}/reset>; rel="successor-version"');
});

test('deprecated endpoints on a 401 still carry the deprecation headers', async () => {
  const h = harness({ authToken: TOKEN });
  const denied = await call(h, 'PATCH', '/workflow/wf-1/stop');
  assert.is(denied.status, 401);
  assert.match(denied.headers['deprecation'] ?? '', /^@\d+$/);
  assert.is(denied.headers['sunset'], SUNSET);
});

test('deprecatedEndpoints: false answers 410 GoneError pointing at the pinned path, headers kept, API untouched', async () => {
  const h = harness({ deprecatedEndpoints: false });
  const stop = await call(h, 'PATCH', '/workflow/wf-1/stop');
  assert.is(stop.status, 410);
  assert.is(stop.json.error, 'GoneError');
  assert.match(stop.json.message, '/workflow/{id}/runs/{rid}/stop');
  assert.match(stop.headers['deprecation'] ?? '', /^@\d+$/);
  const reset = await call(h, 'POST', '/workflow/wf-1/reset', { json: { stepName: 'a' } });
  assert.is(reset.status, 410);
  assert.match(reset.json.message, '/workflow/{id}/runs/{rid}/reset');
  assert.is(h.api.calls.length, 0);
  assert.is((await call(h, 'PATCH', `/workflow/wf-1/runs/${RUN_ID}/stop`)).status, 200);
});

// ---- history ----------------------------------------------------------------------------------------------------

test('history: a JSON page by default, with the page query passed through', async () => {
  const h = harness();
  const page = await call(h, 'GET', '/workflow/wf-1/history?pageSize=10&pageToken=p2');
  assert.is(page.status, 200);
  assert.equal(h.api.lastCall('historyPage'), [{ workflowId: 'wf-1' }, { pageSize: 10, pageToken: 'p2' }]);
  await call(h, 'GET', `/workflow/wf-1/runs/${RUN_ID}/history`);
  assert.equal(h.api.lastCall('historyPage'), [{ workflowId: 'wf-1', runId: RUN_ID }, { pageSize: 50 }]);
  assert.is((await call(h, 'GET', '/workflow/wf-1/history?pageSize=201')).status, 400);
});

test('history as server-sent events: headers, frames, Last-Event-ID, access log at the end', async () => {
  const h = harness();
  const stream = await call(h, 'GET', '/workflow/wf-1/history', { headers: { accept: 'text/event-stream', 'last-event-id': '1' } });
  assert.is(stream.status, 200);
  assert.match(stream.headers['content-type']!, /^text\/event-stream/);
  assert.match(stream.headers['cache-control']!, /no-cache/);
  assert.match(stream.text, /^event: workflow\ndata: .*\n\nevent: history\nid: 1\n/);
  assert.ok(stream.text.endsWith('event: done\ndata: {"status":"completed"}\n\n'));
  assert.is(h.api.lastStreamRequest?.lastEventId, 1);
  assert.ok(h.api.lastStreamRequest?.signal.aborted, 'the engine is told to stop once the stream ends');
  assert.is(h.logger.entries.filter((entry) => entry.message === 'http request').length, 1);
});

test('history stream: an unknown run is still a JSON 404; a bad Last-Event-ID is a 400', async () => {
  const h = harness();
  h.api.overrides.historyStream = async () => {
    throw new errors.WorkflowNotFoundError('no such workflow', { workflowId: 'ghost' });
  };
  const missing = await call(h, 'GET', '/workflow/ghost/history', { headers: { accept: 'text/event-stream' } });
  assert.is(missing.status, 404);
  assert.is(missing.json.error, 'WorkflowNotFoundError');
  const bad = await call(h, 'GET', '/workflow/ghost/history', { headers: { accept: 'text/event-stream', 'last-event-id': 'x' } });
  assert.is(bad.status, 400);
});

test('history stream: the request signal reaches the API and aborts it when the client leaves', async () => {
  const h = harness();
  const client = new AbortController();
  const response = await h.app.handle({
    method: 'GET',
    url: '/workflow/wf-1/history',
    headers: { accept: 'text/event-stream' },
    body: null,
    signal: client.signal,
  });
  assert.not.ok(h.api.lastStreamRequest?.signal.aborted);
  client.abort();
  assert.ok(h.api.lastStreamRequest?.signal.aborted);
  assert.is(typeof response.body, 'object');
});

// ---- system endpoints ---------------------------------------------------------------------------------------------

test('readiness: 200 ready, 503 unavailable with Retry-After, 503 also when the check throws', async () => {
  const h = harness();
  assert.equal((await call(h, 'GET', '/ready')).json, { status: 'ready', engine: 'memory' });
  h.api.overrides.readiness = async () => ({ status: 'unavailable', engine: 'temporal', message: 'no answer within 2 s' });
  const down = await call(h, 'GET', '/ready');
  assert.is(down.status, 503);
  assert.is(down.headers['retry-after'], '5');
  assert.is(down.json.status, 'unavailable');
  h.api.overrides.readiness = async () => {
    throw new Error('boom');
  };
  const broken = await call(h, 'GET', '/ready');
  assert.is(broken.status, 503);
  assert.is(broken.json.status, 'unavailable');
  assert.not.match(broken.text, /boom/);
});

test('health and the OpenAPI document', async () => {
  const h = harness();
  assert.equal((await call(h, 'GET', '/health')).json, { status: 'ok' });
  const document = await call(h, 'GET', '/openapi.json');
  assert.is(document.status, 200);
  assert.equal(document.json, h.app.openApiDocument);
  assert.is(h.api.calls.length, 0);
});

test('common headers: nosniff everywhere, no-store on API answers', async () => {
  const h = harness();
  const answer = await call(h, 'GET', '/workflow/wf-1/status');
  assert.is(answer.headers['x-content-type-options'], 'nosniff');
  assert.is(answer.headers['cache-control'], 'no-store');
  assert.is(answer.headers['content-type'], 'application/json; charset=utf-8');
});

test.run();
