import * as assert from 'uvu/assert';
import { uniqueId } from '../support/http.js';
import {
  contractSuite,
  expectError,
  expectStatus,
  http,
  keys,
  RESULT_LEGACY_KEYS,
  RESULT_V2_KEYS,
  runsOfId,
  statusOf,
  UUID,
  wf,
} from '../support/contract.js';
import { eventually } from '../support/eventually.js';

/** POST /workflow/run: start, wait, answer the result. */
const test = contractSuite('POST /workflow/run');

test('runs to completion and answers the version 2 result with exactly its documented keys', async ({ api }) => {
  const workflowId = uniqueId('run-echo');
  const response = await http(api, 'POST', '/workflow/run', {
    json: { workflowName: 'echo', workflowId, input: { message: 'hi' }, timeout: 10 },
  });
  expectStatus(response, 200);
  assert.match(response.headers['content-type'] ?? '', /application\/json/);
  assert.equal(keys(response.body), RESULT_V2_KEYS);
  assert.is(response.body.v, '2');
  assert.is(response.body.workflowId, workflowId);
  assert.match(response.body.runId, UUID);
  assert.is(response.body.status, 'completed');
  assert.equal(response.body.input, { message: 'hi' });
  assert.equal(response.body.output, { message: 'hi' });
  assert.is(response.body.error, null);
  assert.is(response.headers['deprecation'], undefined, 'the version 2 result is not deprecated');

  const status = await statusOf(api, workflowId);
  expectStatus(status, 200);
  assert.is(status.body.runId, response.body.runId, 'the result names the run the status endpoint knows');
  assert.is(status.body.status, 'completed');
});

test('the default timeout applies when none is sent, and fractions of a second are accepted', async ({ api }) => {
  const noTimeout = await http(api, 'POST', '/workflow/run', { json: { workflowName: 'arithmetic', input: { n: 4 } } });
  expectStatus(noTimeout, 200);
  assert.equal(noTimeout.body.output, { result: 10 });
  const fraction = await http(api, 'POST', '/workflow/run', { json: { workflowName: 'arithmetic', input: { n: 0 }, timeout: 5.5 } });
  expectStatus(fraction, 200);
  assert.equal(fraction.body.output, { result: 2 });
});

test('without a workflowId one is generated, and the run is addressable by it', async ({ api }) => {
  const response = await http(api, 'POST', '/workflow/run', { json: { workflowName: 'echo', input: { message: 'anon' } } });
  expectStatus(response, 200);
  assert.type(response.body.workflowId, 'string');
  assert.ok(response.body.workflowId.length > 0);
  const result = await http(api, 'GET', `${wf(response.body.workflowId)}/result`);
  expectStatus(result, 200);
  assert.is(result.body.runId, response.body.runId);
});

test('?v=legacy answers the legacy shape with exactly its keys and Deprecation: @<epoch seconds> (RFC 9745)', async ({ api }) => {
  const workflowId = uniqueId('run-legacy');
  const response = await http(api, 'POST', '/workflow/run?v=legacy', {
    json: { workflowName: 'arithmetic', workflowId, input: { n: 1 } },
  });
  expectStatus(response, 200);
  assert.equal(keys(response.body), RESULT_LEGACY_KEYS);
  assert.not.ok('v' in response.body, 'the legacy shape has no v');
  assert.match(response.headers['deprecation'] ?? '', /^@\d+$/);
  assert.is(response.body.workflowId, workflowId);
  assert.is(response.body.status, 'completed');
  assert.equal(response.body.output, { result: 4 });
  assert.equal(response.body.input, { n: 1 });
  assert.is(response.body.error, null);
  assert.is(response.body.errorDetails, null);
  assert.equal(keys(response.body.trace), ['destinations']);
});

test('an unknown result version is a 400 and starts nothing', async ({ api }) => {
  const workflowId = uniqueId('run-v3');
  const response = await http(api, 'POST', '/workflow/run?v=3', { json: { workflowName: 'echo', workflowId, input: { message: 'x' } } });
  expectError(response, 400, 'ValidationError');
  expectError(await statusOf(api, workflowId), 404, 'WorkflowNotFoundError', { maybeWorkflowId: workflowId });
});

test('input may be any JSON value, null included', async ({ api }) => {
  for (const input of [null, [1, 'two', { three: 3 }], 'text', 42, { nested: { deep: [true, false] } }]) {
    const response = await http(api, 'POST', '/workflow/run', { json: { workflowName: 'any_input', input } });
    expectStatus(response, 200, `input ${JSON.stringify(input)}`);
    assert.is(response.body.status, 'completed');
    assert.equal(response.body.input, input);
    assert.equal(response.body.output, input);
  }
});

test('a workflow that ends failed is still a 200 with status and error', async ({ api }) => {
  const workflowId = uniqueId('run-fails');
  const response = await http(api, 'POST', '/workflow/run', {
    json: { workflowName: 'fails_in_step', workflowId, input: { reason: 'late' } },
  });
  expectStatus(response, 200);
  assert.is(response.body.status, 'failed');
  assert.is(response.body.output, null);
  assert.is(response.body.error.name, 'InvoiceRejectedError');
  assert.is(response.body.error.activityType, 'fails_in_step#reject_invoice');
});

test('a continue-as-new chain is awaited to its last run; the answer keeps the original input', async ({ api }) => {
  const workflowId = uniqueId('run-countdown');
  const response = await http(api, 'POST', '/workflow/run', { json: { workflowName: 'countdown', workflowId, input: { n: 2 } } });
  expectStatus(response, 200);
  assert.is(response.body.status, 'completed');
  assert.equal(response.body.output, { done: true });
  assert.equal(response.body.input, { n: 2 });
  // Temporal's list may show a run a moment after it continued or closed (its visibility store lags): asked until it
  // shows three runs, one of them completed.
  const runs = await eventually('the run list to show the chain, closed', async () => {
    const listed = await runsOfId(api, 'countdown', workflowId);
    return listed.length >= 3 && listed.some((run) => run.status === 'completed') && listed;
  });
  assert.is(runs.length, 3, 'n=2 makes three runs');
  const last = runs.find((run) => run.status === 'completed');
  assert.is(response.body.runId, last?.runId, 'the result is the last run of the chain');
});

test('catalog routes the run; the deprecated taskQueue alias works; catalog wins over it', async ({ api }) => {
  const viaCatalog = await http(api, 'POST', '/workflow/run', { json: { workflowName: 'other_only', catalog: 'other', input: {} } });
  expectStatus(viaCatalog, 200);
  assert.equal(viaCatalog.body.output, { ok: true });

  const aliasId = uniqueId('run-alias');
  const viaAlias = await http(api, 'POST', '/workflow/run', {
    json: { workflowName: 'other_only', taskQueue: 'other', workflowId: aliasId, input: {} },
  });
  expectStatus(viaAlias, 200);
  assert.is((await statusOf(api, aliasId)).body.catalog, 'other');

  const bothId = uniqueId('run-both');
  const both = await http(api, 'POST', '/workflow/run', {
    json: { workflowName: 'other_only', catalog: 'other', taskQueue: 'main', workflowId: bothId, input: {} },
  });
  expectStatus(both, 200, 'catalog "other" wins over taskQueue "main"');
  assert.is((await statusOf(api, bothId)).body.catalog, 'other');

  const mainId = uniqueId('run-main-wins');
  const mainWins = await http(api, 'POST', '/workflow/run', {
    json: { workflowName: 'echo', catalog: 'main', taskQueue: 'other', workflowId: mainId, input: { message: 'm' } },
  });
  expectStatus(mainWins, 200, 'catalog "main" wins over taskQueue "other"');
  assert.is((await statusOf(api, mainId)).body.catalog, 'main');

  const aliasOnlyWrong = uniqueId('run-alias-wrong');
  const wrong = await http(api, 'POST', '/workflow/run', {
    json: { workflowName: 'echo', taskQueue: 'other', workflowId: aliasOnlyWrong, input: { message: 'm' } },
  });
  expectError(wrong, 424, 'UnsupportedWorkflowError', { maybeWorkflowId: aliasOnlyWrong });
});

test('a workflowId of a closed run can be used again: a new run, the old one kept', async ({ api }) => {
  const workflowId = uniqueId('run-reuse');
  const first = await http(api, 'POST', '/workflow/run', { json: { workflowName: 'echo', workflowId, input: { message: '1' } } });
  expectStatus(first, 200);
  const second = await http(api, 'POST', '/workflow/run', { json: { workflowName: 'echo', workflowId, input: { message: '2' } } });
  expectStatus(second, 200);
  assert.is.not(second.body.runId, first.body.runId);
  const latest = await http(api, 'GET', `${wf(workflowId)}/result`);
  assert.is(latest.body.runId, second.body.runId);
  assert.equal(latest.body.output, { message: '2' });
  const pinnedFirst = await http(api, 'GET', `${wf(workflowId, first.body.runId)}/result`);
  expectStatus(pinnedFirst, 200);
  assert.equal(pinnedFirst.body.output, { message: '1' });
});

test.run();
