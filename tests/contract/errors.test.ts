import * as assert from 'uvu/assert';
import { uniqueId, waitForEvent } from '../support/http.js';
import type { CallOptions } from '../support/http.js';
import {
  contractSuite,
  expectError,
  expectIssueAt,
  expectNothingStarted,
  expectStatus,
  http,
  listAllRuns,
  runsOfId,
  snapshot,
  start,
  statusOf,
  waitUntil,
  wf,
  type ExpectedError,
} from '../support/contract.js';
import { isEmbedded } from '../support/engines.js';
import { eventually } from '../support/eventually.js';

/**
 * Bad requests to the two start endpoints, table-driven. Every case carries a fresh workflowId and, after the
 * error is checked, proves that nothing started under it.
 */
const test = contractSuite('errors: bad start requests');

type Endpoint = '/workflow/run' | '/workflow';

interface BadStart {
  name: string;
  endpoints: Endpoint[];
  /** Builds the request for a fresh workflow id. */
  request: (workflowId: string) => CallOptions;
  status: number;
  error: string;
  /** Fields the ValidationError issues must name. */
  issueAt?: string;
  /** The workflow the request names, for the "nothing started" check. */
  workflowName?: string;
  headers?: Record<string, string>;
  expected?: ExpectedError;
}

const BOTH: Endpoint[] = ['/workflow/run', '/workflow'];
const body = (fields: Record<string, unknown>) => (workflowId: string): CallOptions => ({ json: { workflowId, ...fields } });
const echo = { workflowName: 'echo', input: { message: 'x' } };
const TRANSPORT: ExpectedError = { workflowId: null };

const CASES: BadStart[] = [
  {
    name: 'malformed JSON',
    endpoints: BOTH,
    request: (id) => ({ raw: `{"workflowName":"echo","workflowId":"${id}","input":{"message":"x"}`, headers: { 'content-type': 'application/json' } }),
    status: 400,
    error: 'ValidationError',
    expected: TRANSPORT,
  },
  {
    name: 'wrong content type (text/plain)',
    endpoints: BOTH,
    request: (id) => ({ raw: JSON.stringify({ ...echo, workflowId: id }), headers: { 'content-type': 'text/plain' } }),
    status: 415,
    error: 'UnsupportedMediaTypeError',
    expected: TRANSPORT,
  },
  {
    name: 'wrong content type (form)',
    endpoints: BOTH,
    request: (id) => ({ raw: `workflowName=echo&workflowId=${id}`, headers: { 'content-type': 'application/x-www-form-urlencoded' } }),
    status: 415,
    error: 'UnsupportedMediaTypeError',
    expected: TRANSPORT,
  },
  {
    name: 'a JSON body that is not an object',
    endpoints: BOTH,
    request: (id) => ({ json: [{ ...echo, workflowId: id }] }),
    status: 400,
    error: 'ValidationError',
  },
  {
    name: 'a charset other than UTF-8',
    endpoints: BOTH,
    request: (id) => ({ raw: JSON.stringify({ ...echo, workflowId: id }), headers: { 'content-type': 'application/json; charset=iso-8859-1' } }),
    status: 415,
    error: 'UnsupportedMediaTypeError',
    expected: TRANSPORT,
  },
  {
    name: 'a body without a content type',
    endpoints: BOTH,
    request: (id) => ({ raw: JSON.stringify({ ...echo, workflowId: id }) }),
    status: 415,
    error: 'UnsupportedMediaTypeError',
    expected: TRANSPORT,
  },
  { name: 'no body at all', endpoints: BOTH, request: () => ({ headers: { 'content-type': 'application/json' } }), status: 400, error: 'ValidationError' },
  { name: 'empty catalog', endpoints: BOTH, request: body({ ...echo, catalog: '' }), status: 400, error: 'ValidationError', issueAt: 'catalog' },
  { name: 'unknown field', endpoints: BOTH, request: body({ ...echo, bogus: 1 }), status: 400, error: 'ValidationError', issueAt: 'bogus' },
  { name: 'workflowName not a string', endpoints: BOTH, request: body({ workflowName: 42, input: {} }), status: 400, error: 'ValidationError', issueAt: 'workflowName' },
  { name: 'empty workflowName', endpoints: BOTH, request: body({ workflowName: '', input: {} }), status: 400, error: 'ValidationError', issueAt: 'workflowName' },
  { name: 'catalog not a string', endpoints: BOTH, request: body({ ...echo, catalog: true }), status: 400, error: 'ValidationError', issueAt: 'catalog' },
  { name: 'taskQueue not a string', endpoints: BOTH, request: body({ ...echo, taskQueue: ['main'] }), status: 400, error: 'ValidationError', issueAt: 'taskQueue' },
  { name: 'timeout as a string', endpoints: ['/workflow/run'], request: body({ ...echo, timeout: '10' }), status: 400, error: 'ValidationError', issueAt: 'timeout' },
  { name: 'timeout 0', endpoints: ['/workflow/run'], request: body({ ...echo, timeout: 0 }), status: 400, error: 'ValidationError', issueAt: 'timeout' },
  { name: 'negative timeout', endpoints: ['/workflow/run'], request: body({ ...echo, timeout: -1 }), status: 400, error: 'ValidationError', issueAt: 'timeout' },
  { name: 'timeout over RUN_TIMEOUT_MAX_SECONDS', endpoints: ['/workflow/run'], request: body({ ...echo, timeout: 3601 }), status: 400, error: 'ValidationError', issueAt: 'timeout' },
  { name: 'missing workflowName', endpoints: BOTH, request: body({ input: {} }), status: 400, error: 'ValidationError', issueAt: 'workflowName' },
  { name: 'missing input', endpoints: BOTH, request: body({ workflowName: 'echo' }), status: 400, error: 'ValidationError', issueAt: 'input' },
  { name: 'input against the schema', endpoints: BOTH, request: body({ workflowName: 'echo', input: { message: 1 } }), status: 400, error: 'ValidationError', issueAt: 'input' },
  { name: 'unknown workflow', endpoints: BOTH, request: body({ workflowName: 'no_such_workflow', input: {} }), status: 404, error: 'WorkflowNotFoundError', workflowName: 'no_such_workflow' },
  { name: 'workflow only in another catalog', endpoints: BOTH, request: body({ workflowName: 'other_only', input: {} }), status: 424, error: 'UnsupportedWorkflowError', workflowName: 'other_only' },
  { name: 'taskQueue naming a catalog without the workflow', endpoints: BOTH, request: body({ ...echo, taskQueue: 'other' }), status: 424, error: 'UnsupportedWorkflowError' },
  { name: 'unknown catalog', endpoints: BOTH, request: body({ ...echo, catalog: 'atlantis' }), status: 404, error: 'CatalogNotAvailableError' },
  { name: 'unknown catalog through taskQueue', endpoints: BOTH, request: body({ ...echo, taskQueue: 'atlantis' }), status: 404, error: 'CatalogNotAvailableError' },
  // JSON can escape half a surrogate pair; no engine can store one (Temporal's gRPC refused the request: 500 before).
  { name: 'catalog with an unpaired surrogate', endpoints: BOTH, request: body({ ...echo, catalog: 'main\ud800' }), status: 400, error: 'ValidationError', issueAt: 'catalog' },
  { name: 'taskQueue with an unpaired surrogate', endpoints: BOTH, request: body({ ...echo, taskQueue: '\udc00main' }), status: 400, error: 'ValidationError', issueAt: 'taskQueue' },
  { name: 'workflowName with an unpaired surrogate', endpoints: BOTH, request: body({ workflowName: 'echo\ud800', input: {} }), status: 400, error: 'ValidationError', issueAt: 'workflowName' },
];

for (const testCase of CASES) {
  for (const endpoint of testCase.endpoints) {
    test(`${endpoint}: ${testCase.name} -> ${testCase.status} ${testCase.error}, nothing started`, async ({ api }) => {
      const workflowId = uniqueId('err');
      const workflowName = testCase.workflowName ?? 'echo';
      const runsBefore = (await listAllRuns(api, { workflowName })).length;
      const response = await http(api, 'POST', endpoint, testCase.request(workflowId));
      expectError(response, testCase.status, testCase.error, testCase.expected ?? { maybeWorkflowId: workflowId });
      if (testCase.issueAt) expectIssueAt(response, testCase.issueAt);
      await expectNothingStarted(api, workflowId, workflowName);
      assert.is((await listAllRuns(api, { workflowName })).length, runsBefore, `no new run of ${workflowName}`);
    });
  }
}

test('application/json with charset=utf-8 is accepted', async ({ api }) => {
  for (const endpoint of BOTH) {
    const response = await http(api, 'POST', endpoint, {
      raw: JSON.stringify({ workflowName: 'echo', input: { message: 'ü' } }),
      headers: { 'content-type': 'application/json; charset=utf-8' },
    });
    expectStatus(response, 200, endpoint);
  }
});

test('idle catalog (worker stopped): 503 CatalogNotAvailableError with Retry-After, nothing started', async ({ api }) => {
  for (const endpoint of BOTH) {
    const workflowId = uniqueId('err-idle');
    const response = await http(api, 'POST', endpoint, { json: { workflowName: 'idle_only', catalog: 'idle', workflowId, input: {} } });
    expectError(response, 503, 'CatalogNotAvailableError', { maybeWorkflowId: workflowId });
    assert.match(response.headers['retry-after'] ?? '', /^[1-9]\d*$/, 'Retry-After in seconds');
    await expectNothingStarted(api, workflowId, 'idle_only');
  }
  // Once a worker polls the catalog again, the same request runs.
  await api.startWorker('idle');
  try {
    const response = await http(api, 'POST', '/workflow/run', { json: { workflowName: 'idle_only', catalog: 'idle', input: {} } });
    expectStatus(response, 200, 'idle catalog with its worker started');
    assert.equal(response.body.output, { ok: true });
  } finally {
    await api.stopWorker('idle');
  }
});

test('workflowId with control characters, an unpaired surrogate, empty or over 1000 characters: 400, nothing started', async ({ api }) => {
  const tag = uniqueId('ctl');
  const tooLong = `${tag}${'x'.repeat(1000)}`;
  for (const workflowId of [`${tag}\u0000`, `${tag}\nx`, `${tag}\u007f`, `${tag}\u0085`, `${tag}\t`, `${tag}\ud800`, `\udfff${tag}`, '', tooLong, `${tag}${'😀'.repeat(1000)}`]) {
    for (const endpoint of BOTH) {
      const response = await http(api, 'POST', endpoint, { json: { workflowName: 'echo', workflowId, input: { message: 'x' } } });
      expectError(response, 400, 'ValidationError');
      expectIssueAt(response, 'workflowId');
    }
    const runs = await runsOfId(api, 'echo', workflowId);
    assert.equal(runs, [], `nothing started for ${JSON.stringify(workflowId.slice(0, 30))}`);
  }
  const longest = `${tag}${'y'.repeat(1000 - tag.length)}`;
  assert.is(longest.length, 1000);
  expectStatus(await http(api, 'POST', '/workflow/run', { json: { ...echo, workflowId: longest } }), 200, '1000 characters are fine');
});

test('a workflowId of 1000 characters outside ASCII: the API takes it (characters, as the document counts them); never a 5xx', async ({ api }) => {
  // 1000 characters the document allows (maxLength counts code points), but 2000 UTF-16 code units and 4000 bytes
  // of UTF-8. The embedded engine runs it; Temporal's limit.maxIDLength counts bytes (1000 by default), so there
  // it is a 400 naming workflowId instead of the engine failure (500) it was.
  for (const [what, character] of [['emoji', '😀'], ['two-byte', 'é']] as const) {
    const workflowId = character.repeat(1000);
    const response = await http(api, 'POST', '/workflow/run', { json: { ...echo, workflowId } });
    if (isEmbedded(api.engine)) {
      expectStatus(response, 200, `1000 ${what} characters`);
      assert.is(response.body.workflowId, workflowId);
    } else {
      expectError(response, 400, 'ValidationError', { maybeWorkflowId: workflowId });
      expectIssueAt(response, 'workflowId');
      assert.equal(await runsOfId(api, 'echo', workflowId), [], `nothing started for 1000 ${what} characters`);
    }
  }
});

test('POST /workflow/run with the workflowId of a running execution: 409, the running run untouched', async ({ api }) => {
  const { workflowId, runId } = await start(api, 'awaits_feedback', {}, uniqueId('err-dup'));
  await waitForEvent(api, workflowId, 'feedback_wait_started');
  const before = await snapshot(api, workflowId);
  const response = await http(api, 'POST', '/workflow/run', { json: { workflowName: 'awaits_feedback', workflowId, input: {}, timeout: 1 } });
  expectError(response, 409, 'WorkflowAlreadyStartedError', { workflowId });
  assert.equal(await snapshot(api, workflowId), before);
  // Temporal's list may show a run a moment after its start (its visibility store lags): asked until it shows this one.
  const runs = await eventually('the run list to show the running run', async () => {
    const listed = await runsOfId(api, 'awaits_feedback', workflowId);
    return listed.some((run) => run.runId === runId) && listed;
  });
  assert.equal(runs.map((run) => run.runId), [runId]);
  expectStatus(await http(api, 'POST', `${wf(workflowId, runId)}/terminate`, { json: {} }), 200);
});

test('bad control and feedback requests change nothing; the waiting run still takes the right reply', async ({ api }) => {
  const { workflowId, runId } = await start(api, 'step_then_waits', { n: 1 }, uniqueId('err-ctl'));
  await waitUntil(api, workflowId, 'running');
  const pinned = wf(workflowId, runId);
  const bad: [string, string, CallOptions, number, string][] = [
    ['POST', `${pinned}/terminate`, { json: { reason: 5 } }, 400, 'ValidationError'],
    ['POST', `${pinned}/terminate`, { json: { reason: 'x', force: true } }, 400, 'ValidationError'],
    ['POST', `${pinned}/terminate`, { raw: 'reason=x', headers: { 'content-type': 'text/plain' } }, 415, 'UnsupportedMediaTypeError'],
    ['POST', `${pinned}/terminate`, { raw: '{"reason":', headers: { 'content-type': 'application/json' } }, 400, 'ValidationError'],
    ['PATCH', `${pinned}/stop`, { json: { now: true } }, 400, 'ValidationError'],
    ['PATCH', `${pinned}/stop`, { raw: 'stop', headers: { 'content-type': 'text/plain' } }, 415, 'UnsupportedMediaTypeError'],
    ['POST', `${pinned}/reset`, { json: {} }, 400, 'ValidationError'],
    ['POST', `${pinned}/reset`, { json: { stepName: '' } }, 400, 'ValidationError'],
    ['POST', `${pinned}/reset`, { json: { stepName: 'add_one', extra: 1 } }, 400, 'ValidationError'],
    ['POST', `${pinned}/reset`, { json: { stepName: 42 } }, 400, 'ValidationError'],
    ['POST', `${pinned}/reset`, { json: { stepName: 'add_one\ud800' } }, 400, 'ValidationError'],
    ['POST', `${pinned}/reset`, { json: { stepName: 'add_one', reason: 'why\ud800' } }, 400, 'ValidationError'],
    ['POST', `${pinned}/terminate`, { json: { reason: '\udc00' } }, 400, 'ValidationError'],
    ['POST', '/workflow/feedback', { json: { workflowId: `${workflowId}\ud800`, payload: {} } }, 400, 'ValidationError'],
    ['POST', `${wf(workflowId, 'nope')}/reset`, { json: { stepName: 'add_one' } }, 400, 'ValidationError'],
    ['POST', '/workflow/feedback', { json: { workflowId, payload: 'yes' } }, 400, 'ValidationError'],
    ['POST', '/workflow/feedback', { json: { workflowId, payload: [1] } }, 400, 'ValidationError'],
    ['POST', '/workflow/feedback', { json: { workflowId } }, 400, 'ValidationError'],
    ['POST', '/workflow/feedback', { json: { payload: { a: 1 } } }, 400, 'ValidationError'],
    ['POST', '/workflow/feedback', { json: { workflowId, payload: {}, extra: 1 } }, 400, 'ValidationError'],
    ['POST', '/workflow/feedback', { raw: JSON.stringify({ workflowId, payload: {} }), headers: { 'content-type': 'text/plain' } }, 415, 'UnsupportedMediaTypeError'],
  ];
  await waitForEvent(api, workflowId, 'feedback_wait_started');
  const before = await snapshot(api, workflowId);
  for (const [method, path, options, status, error] of bad) {
    const response = await http(api, method, path, options);
    expectError(response, status, error, { maybeWorkflowId: workflowId });
    assert.equal(await snapshot(api, workflowId), before, `${method} ${path} ${JSON.stringify(options)} changed nothing`);
  }
  expectStatus(await http(api, 'POST', '/workflow/feedback', { json: { workflowId, payload: { right: true } } }), 200);
  await waitUntil(api, workflowId, 'completed', runId);
  const result = await http(api, 'GET', `${pinned}/result`);
  assert.equal(result.body.output, { n: 2, reply: { right: true } }, 'only the valid reply reached the run');
  assert.is((await statusOf(api, workflowId)).body.runId, runId, 'no reset happened');
});

test.run();
