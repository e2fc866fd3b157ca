import * as assert from 'uvu/assert';
import { stat } from 'node:fs/promises';
import { sep } from 'node:path';
import { uniqueId, waitForEvent } from '../support/http.js';
import {
  contractSuite,
  expectError,
  expectNothingStarted,
  expectStatus,
  http,
  listAllRuns,
  runAndWait,
  snapshot,
  start,
  wf,
} from '../support/contract.js';
import { eventually } from '../support/eventually.js';

/** Transport-level errors: paths, methods, ids in paths, request ids, body and timeout limits. */
const test = contractSuite('errors: paths, methods, ids and request ids');

const RID = '2c5ea4c0-4067-11e9-8bad-9b1deb4d3b7d';

test('unknown paths: 404 NotFoundError with exactly {error, message}', async ({ api }) => {
  for (const [method, path] of [
    ['GET', '/nope'],
    ['GET', '/'],
    ['GET', '/workflow/x/y/z/w/v'],
    ['POST', '/workflow/x/unknown'],
    ['GET', '/workflow/x/runs'],
    ['GET', `/workflow/x/runs/${RID}`],
    ['GET', '/workflows/list'],
  ] as const) {
    const response = await http(api, method, path, method === 'POST' ? { json: {} } : {});
    expectError(response, 404, 'NotFoundError', { workflowId: null });
  }
});

test('known path, wrong method: 405 MethodNotAllowedError with Allow', async ({ api }) => {
  for (const [method, path, allow] of [
    ['DELETE', '/workflow/run', 'POST'],
    ['GET', '/workflow/run', 'POST'],
    ['GET', '/workflow', 'POST'],
    ['POST', '/workflow/list', 'GET'],
    ['GET', '/workflow/feedback', 'POST'],
    ['PUT', '/workflow/some-id/status', 'GET'],
    ['POST', `/workflow/some-id/runs/${RID}/result`, 'GET'],
    ['GET', `/workflow/some-id/runs/${RID}/stop`, 'PATCH'],
    ['GET', `/workflow/some-id/runs/${RID}/terminate`, 'POST'],
    ['DELETE', '/ready', 'GET'],
  ] as const) {
    const response = await http(api, method, path);
    expectError(response, 405, 'MethodNotAllowedError', { workflowId: null });
    const allowed = (response.headers['allow'] ?? '').split(',').map((value) => value.trim());
    assert.ok(allowed.includes(allow), `${method} ${path}: Allow "${response.headers['allow']}" includes ${allow}`);
    assert.not.ok(allowed.includes(method), `${method} is not in Allow`);
  }
});

test('a run id that is not a UUID: 400 ValidationError on every pinned endpoint', async ({ api }) => {
  const { workflowId, runId } = await start(api, 'awaits_feedback', {}, uniqueId('eh-rid'));
  await waitForEvent(api, workflowId, 'feedback_wait_started');
  const before = await snapshot(api, workflowId);
  for (const rid of ['not-a-uuid', '123', `${runId}x`, 'latest']) {
    const base = wf(workflowId, rid);
    for (const [method, path, options] of [
      ['GET', `${base}/status`, {}],
      ['GET', `${base}/result`, {}],
      ['GET', `${base}/input`, {}],
      ['GET', `${base}/history`, {}],
      ['GET', `${base}/trace-log`, {}],
      ['PATCH', `${base}/stop`, {}],
      ['POST', `${base}/terminate`, { json: {} }],
      ['POST', `${base}/reset`, { json: { stepName: 'x' } }],
    ] as const) {
      const response = await http(api, method, path, options);
      expectError(response, 400, 'ValidationError', { maybeWorkflowId: workflowId });
    }
  }
  assert.equal(await snapshot(api, workflowId), before, 'nothing changed');
  expectStatus(await http(api, 'POST', `${wf(workflowId, runId)}/terminate`, { json: {} }), 200);
});

test('workflow ids in the path: control characters, over 1000 characters, bad escapes: 400', async ({ api }) => {
  for (const id of ['a%00b', 'a%0Ab', 'a%7Fb', 'a%C2%85b', 'x'.repeat(1001), 'bad%E0%A4%escape', '%']) {
    const response = await http(api, 'GET', `/workflow/${id}/status`);
    expectError(response, 400, 'ValidationError');
  }
  const stop = await http(api, 'PATCH', `/workflow/a%01b/runs/${RID}/stop`);
  expectError(stop, 400, 'ValidationError');
});

test('odd workflow ids round-trip through the path, and their trace stays inside TRACE_DIR', async ({ api }) => {
  const tag = uniqueId('odd');
  const ids = [
    `${tag} with spaces`,
    `${tag}-ünïcødé-✓-🚀`,
    `${tag}/with/slashes`,
    `${tag}?query#fragment`,
    `${tag}%2F-literal-percent`,
    `../../${tag}`,
    `.${tag}`,
    `${tag}+plus&amp;=`,
  ];
  for (const workflowId of ids) {
    const run = await runAndWait(api, { workflowName: 'echo', workflowId, input: { message: workflowId } });
    assert.is(run.workflowId, workflowId);
    for (const path of [`${wf(workflowId)}/status`, `${wf(workflowId, run.runId)}/status`, `${wf(workflowId)}/input`, `${wf(workflowId)}/result`]) {
      const response = await http(api, 'GET', path);
      expectStatus(response, 200, `${path} for ${JSON.stringify(workflowId)}`);
      assert.is(response.body.workflowId, workflowId);
      assert.is(response.body.runId, run.runId);
    }
    const history = await http(api, 'GET', `${wf(workflowId)}/history`);
    expectStatus(history, 200);
    assert.is(history.body.workflow.workflowId, workflowId);
    const trace = await http(api, 'GET', `${wf(workflowId, run.runId)}/trace-log`);
    expectStatus(trace, 200);
    assert.is(trace.body.data.workflowId, workflowId);
    assert.ok(trace.body.localPath.startsWith(api.traceDir + sep + 'echo' + sep), `trace of ${workflowId} stays in TRACE_DIR/echo`);
    assert.ok((await stat(trace.body.localPath)).isFile());
  }
  // Temporal's list may show a run a moment after it closed (its visibility store lags): asked until it shows them all.
  const listed = await eventually('the run list to show every odd id', async () => {
    const workflowIds = (await listAllRuns(api, { workflowName: 'echo' })).map((run) => run.workflowId);
    return ids.every((workflowId) => workflowIds.includes(workflowId)) && workflowIds;
  });
  for (const workflowId of ids) assert.ok(listed.includes(workflowId), `${workflowId} in the run list`);
  // An encoded "/" is part of the id, not a path separator: "<tag>" alone is a different (unknown) id.
  expectError(await http(api, 'GET', `${wf(tag)}/status`), 404, 'WorkflowNotFoundError', { maybeWorkflowId: tag });
});

test('bodies nested deeper than MAX_JSON_DEPTH, or carrying __proto__ / constructor.prototype: 400, nothing started', async ({ api }) => {
  const deep = (levels: number) => `${'['.repeat(levels)}${']'.repeat(levels)}`;
  const cases: [string, string, string][] = [
    ['deep', 'too_deep', `{"workflowName":"any_input","workflowId":"%ID%","input":{"x":${deep(150)}}}`],
    ['proto', 'prototype_key', '{"workflowName":"any_input","workflowId":"%ID%","input":{"a":{"__proto__":{"polluted":true}}}}'],
    ['escaped proto', 'prototype_key', '{"workflowName":"any_input","workflowId":"%ID%","input":{"\\u005f_proto__":{"polluted":true}}}'],
    ['constructor', 'prototype_key', '{"workflowName":"any_input","workflowId":"%ID%","input":{"constructor":{"prototype":{"polluted":true}}}}'],
  ];
  for (const [what, code, template] of cases) {
    const workflowId = uniqueId(`body-${what.replace(' ', '-')}`);
    for (const path of ['/workflow', '/workflow/run']) {
      const response = await http(api, 'POST', path, { raw: template.replace('%ID%', workflowId), headers: { 'content-type': 'application/json' } });
      expectError(response, 400, 'ValidationError');
      assert.is(response.body.issues[0].code, code, `${what} on ${path}`);
    }
    await expectNothingStarted(api, workflowId, 'any_input');
  }
  assert.is(({} as Record<string, unknown>)['polluted'], undefined);
  // Nesting up to the limit, and the words as ordinary data, are accepted.
  const fine = await http(api, 'POST', '/workflow/run', { json: { workflowName: 'any_input', input: { constructor: 'Ford', x: JSON.parse(deep(90)) } } });
  expectStatus(fine, 200);
});

test('a body that is not UTF-8 is a 400 ValidationError (invalid_encoding), nothing started; a leading byte order mark is ignored', async ({ api }) => {
  const workflowId = uniqueId('body-encoding');
  const json = (text: string) => Buffer.from(text.replace('%ID%', workflowId), 'utf8');
  const invalid = [
    Buffer.concat([json('{"workflowName":"any_input","workflowId":"%ID%","input":{"x":"'), Buffer.from([0xff]), json('"}}')]),
    Buffer.concat([json('{"workflowName":"any_input","workflowId":"%ID%","input":{"x":"'), Buffer.from([0xed, 0xa0, 0x80]), json('"}}')]),
  ];
  for (const raw of invalid) {
    for (const path of ['/workflow', '/workflow/run']) {
      const response = await http(api, 'POST', path, { raw, headers: { 'content-type': 'application/json' } });
      expectError(response, 400, 'ValidationError');
      assert.is(response.body.issues[0].code, 'invalid_encoding', path);
    }
  }
  await expectNothingStarted(api, workflowId, 'any_input');
  const marked = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), json('{"workflowName":"any_input","workflowId":"%ID%","input":{"x":"é"}}')]);
  const run = await http(api, 'POST', '/workflow/run', { raw: marked, headers: { 'content-type': 'application/json' } });
  expectStatus(run, 200);
  assert.equal(run.body.input, { x: 'é' });
});

test('X-Request-Id: a valid incoming one is echoed (errors too); otherwise one is generated', async ({ api }) => {
  const mine = `req-${Date.now()}.a_b:c`;
  const ok = await http(api, 'GET', '/workflow/list', { headers: { 'x-request-id': mine } });
  assert.is(ok.headers['x-request-id'], mine);
  const error = await http(api, 'GET', '/nope', { headers: { 'x-request-id': mine } });
  assert.is(error.headers['x-request-id'], mine);
  const bad = await http(api, 'POST', '/workflow/run', { json: {}, headers: { 'x-request-id': mine } });
  assert.is(bad.status, 400);
  assert.is(bad.headers['x-request-id'], mine);

  const first = await http(api, 'GET', '/health');
  const second = await http(api, 'GET', '/health');
  assert.ok(first.headers['x-request-id'] && second.headers['x-request-id']);
  assert.is.not(first.headers['x-request-id'], second.headers['x-request-id'], 'generated ids are unique');
  for (const invalid of ['has spaces in it', 'x'.repeat(500), 'semi;colon', '<script>']) {
    const response = await http(api, 'GET', '/health', { headers: { 'x-request-id': invalid } });
    assert.ok(response.headers['x-request-id'], 'an id is still sent');
    assert.is.not(response.headers['x-request-id'], invalid, `"${invalid.slice(0, 20)}" is not echoed`);
  }
});

test.run();

/** A server with a small MAX_BODY_BYTES and a RUN_TIMEOUT_MAX_SECONDS above the default timeout. */
const limits = contractSuite('errors: configured limits', { MAX_BODY_BYTES: '1024', RUN_TIMEOUT_MAX_SECONDS: '60' });

limits('a body over MAX_BODY_BYTES: 413 PayloadTooLargeError, nothing started; a body under it is fine', async ({ api }) => {
  for (const endpoint of ['/workflow/run', '/workflow']) {
    const workflowId = uniqueId('lim-big');
    const big = { workflowName: 'echo', workflowId, input: { message: 'x'.repeat(4000) } };
    const response = await http(api, 'POST', endpoint, { json: big });
    expectError(response, 413, 'PayloadTooLargeError', { workflowId: null });
    await expectNothingStarted(api, workflowId, 'echo');
  }
  const smallId = uniqueId('lim-small');
  const small = { workflowName: 'echo', workflowId: smallId, input: { message: 'y'.repeat(800) } };
  assert.ok(JSON.stringify(small).length < 1024);
  expectStatus(await http(api, 'POST', '/workflow/run', { json: small }), 200, 'under the limit');
});

limits('a too-large feedback or reset body changes nothing', async ({ api }) => {
  const { workflowId, runId } = await start(api, 'awaits_feedback', {}, uniqueId('lim-fb'));
  await waitForEvent(api, workflowId, 'feedback_wait_started');
  const before = await snapshot(api, workflowId);
  const feedback = await http(api, 'POST', '/workflow/feedback', { json: { workflowId, payload: { blob: 'z'.repeat(5000) } } });
  expectError(feedback, 413, 'PayloadTooLargeError', { workflowId: null });
  const reset = await http(api, 'POST', `${wf(workflowId, runId)}/reset`, { json: { stepName: 'x', reason: 'r'.repeat(5000) } });
  expectError(reset, 413, 'PayloadTooLargeError', { maybeWorkflowId: workflowId });
  assert.equal(await snapshot(api, workflowId), before);
  expectStatus(await http(api, 'POST', `${wf(workflowId, runId)}/terminate`, { json: {} }), 200);
});

limits('timeout up to RUN_TIMEOUT_MAX_SECONDS (60) is accepted; above it 400 and nothing started', async ({ api }) => {
  await expectTimeoutBound(api, 60);
});

limits.run();

/**
 * RUN_TIMEOUT_MAX_SECONDS below the 30 s default timeout is still a valid configuration (docs/api.md: a positive
 * number of seconds): the server starts, and requests without a timeout are not refused for it.
 */
const lowMax = contractSuite('errors: RUN_TIMEOUT_MAX_SECONDS below the default timeout', { RUN_TIMEOUT_MAX_SECONDS: '10' });

lowMax('the server starts; timeout 10 accepted, 10.5 refused, none sent works', async ({ api }) => {
  await expectTimeoutBound(api, 10);
  expectStatus(await http(api, 'POST', '/workflow/run', { json: { workflowName: 'echo', input: { message: 'default' } } }), 200);
});

lowMax.run();

async function expectTimeoutBound(api: Parameters<typeof start>[0], max: number): Promise<void> {
  const okId = uniqueId('lim-max');
  const ok = await http(api, 'POST', '/workflow/run', { json: { workflowName: 'echo', workflowId: okId, input: { message: 'a' }, timeout: max } });
  expectStatus(ok, 200, `timeout ${max}`);
  const overId = uniqueId('lim-over');
  const over = await http(api, 'POST', '/workflow/run', {
    json: { workflowName: 'echo', workflowId: overId, input: { message: 'a' }, timeout: max + 0.5 },
  });
  expectError(over, 400, 'ValidationError', { maybeWorkflowId: overId });
  await expectNothingStarted(api, overId, 'echo');
}
