import * as assert from 'uvu/assert';
import { engineUnderTest } from '../support/engines.js';
import { uniqueId, waitForEvent } from '../support/http.js';
import {
  contractSuite,
  expectError,
  expectIssueAt,
  expectNothingStarted,
  expectStatus,
  http,
  keys,
  runsOfId,
  snapshot,
  start,
  statusOf,
  UUID,
  waitUntil,
  wf,
} from '../support/contract.js';
import { eventually } from '../support/eventually.js';

/** POST /workflow: start without waiting. */
const test = contractSuite('POST /workflow');

test('answers exactly {workflowId, runId, status: running}; the run then completes', async ({ api }) => {
  const workflowId = uniqueId('st-echo');
  const response = await http(api, 'POST', '/workflow', { json: { workflowName: 'arithmetic', workflowId, input: { n: 7 } } });
  expectStatus(response, 200);
  assert.equal(keys(response.body), ['runId', 'status', 'workflowId']);
  assert.is(response.body.workflowId, workflowId);
  assert.match(response.body.runId, UUID);
  assert.is(response.body.status, 'running');
  const done = await waitUntil(api, workflowId, 'completed');
  assert.is(done.runId, response.body.runId);
  const result = await http(api, 'GET', `${wf(workflowId)}/result`);
  assert.equal(result.body.output, { result: 16 });
  assert.equal(result.body.input, { n: 7 });
});

test('without a workflowId a unique one is generated', async ({ api }) => {
  const first = await start(api, 'echo', { message: 'a' });
  const second = await start(api, 'echo', { message: 'b' });
  assert.ok(first.workflowId.length > 0);
  assert.is.not(first.workflowId, second.workflowId);
  expectStatus(await statusOf(api, first.workflowId), 200);
});

test('input must be an object: arrays, strings, numbers and null are 400 and start nothing', async ({ api }) => {
  for (const input of [[1, 2], 'text', 5, null]) {
    const workflowId = uniqueId('st-input');
    const response = await http(api, 'POST', '/workflow', { json: { workflowName: 'any_input', workflowId, input } });
    expectError(response, 400, 'ValidationError');
    expectIssueAt(response, 'input');
    await expectNothingStarted(api, workflowId, 'any_input');
  }
});

if (engineUnderTest() === 'temporal') {
  test("ids of flowgate's own Temporal workflows (catalogs, callback deliveries) are 400 reserved_workflow_id; nothing starts", async ({ api }) => {
    for (const prefix of ['flowgate.catalog:', 'flowgate.callback:']) {
      const workflowId = uniqueId(prefix);
      const response = await http(api, 'POST', '/workflow', { json: { workflowName: 'echo', workflowId, input: { message: 'm' } } });
      expectError(response, 400, 'ValidationError');
      expectIssueAt(response, 'workflowId');
      assert.ok((response.body.issues as { code: string }[]).some((issue) => issue.code === 'reserved_workflow_id'), response.text);
      await expectNothingStarted(api, workflowId, 'echo');
    }
  });
}

test("input not matching the workflow's input schema: 400 with issues, nothing started", async ({ api }) => {
  for (const input of [{ message: 5 }, {}, { message: 'x', extra: true }]) {
    const workflowId = uniqueId('st-schema');
    const response = await http(api, 'POST', '/workflow', { json: { workflowName: 'echo', workflowId, input } });
    expectError(response, 400, 'ValidationError');
    expectIssueAt(response, 'input');
    await expectNothingStarted(api, workflowId, 'echo');
  }
});

test('catalog and the taskQueue alias route the start; catalog wins', async ({ api }) => {
  const viaCatalog = await start(api, 'other_only', {}, uniqueId('st-cat'), { catalog: 'other' });
  const viaAlias = await start(api, 'other_only', {}, uniqueId('st-tq'), { taskQueue: 'other' });
  const both = await start(api, 'other_only', {}, uniqueId('st-both'), { catalog: 'other', taskQueue: 'main' });
  for (const { workflowId } of [viaCatalog, viaAlias, both]) {
    const done = await waitUntil(api, workflowId, 'completed');
    assert.is(done.catalog, 'other');
  }
  const wrongId = uniqueId('st-wrong');
  const wrong = await http(api, 'POST', '/workflow', { json: { workflowName: 'other_only', workflowId: wrongId, input: {} } });
  expectError(wrong, 424, 'UnsupportedWorkflowError', { maybeWorkflowId: wrongId });
  await expectNothingStarted(api, wrongId, 'other_only');
});

test('a workflowId that is still running: 409 WorkflowAlreadyStartedError; the running run is untouched', async ({ api }) => {
  const { workflowId, runId } = await start(api, 'awaits_feedback', {}, uniqueId('st-dup'));
  await waitForEvent(api, workflowId, 'feedback_wait_started');
  const before = await snapshot(api, workflowId);
  const again = await http(api, 'POST', '/workflow', { json: { workflowName: 'awaits_feedback', workflowId, input: {} } });
  expectError(again, 409, 'WorkflowAlreadyStartedError', { workflowId });
  const otherType = await http(api, 'POST', '/workflow', { json: { workflowName: 'echo', workflowId, input: { message: 'x' } } });
  expectError(otherType, 409, 'WorkflowAlreadyStartedError', { workflowId });
  assert.equal(await snapshot(api, workflowId), before);
  // Temporal's list may show a run a moment after its start (its visibility store lags): asked until it shows this one.
  const runs = await eventually('the run list to show the running run', async () => {
    const listed = await runsOfId(api, 'awaits_feedback', workflowId);
    return listed.some((run) => run.runId === runId) && listed;
  });
  assert.equal(runs.map((run) => run.runId), [runId]);
  assert.equal(await runsOfId(api, 'echo', workflowId), []);
  expectStatus(await http(api, 'POST', `${wf(workflowId, runId)}/terminate`, { json: {} }), 200);
});

test('concurrent starts with one workflowId: exactly one 200, the rest 409, one run', async ({ api }) => {
  const workflowId = uniqueId('st-race');
  const answers = await Promise.all(
    Array.from({ length: 10 }, () => http(api, 'POST', '/workflow', { json: { workflowName: 'awaits_feedback', workflowId, input: {} } })),
  );
  const statuses = answers.map((answer) => answer.status).sort();
  assert.equal(statuses, [200, ...Array(9).fill(409)]);
  for (const answer of answers.filter((candidate) => candidate.status === 409)) {
    expectError(answer, 409, 'WorkflowAlreadyStartedError', { workflowId });
  }
  // Temporal's list may show a run a moment after its start (its visibility store lags): asked until it shows one.
  const runs = await eventually('the run list to show the started run', async () => {
    const listed = await runsOfId(api, 'awaits_feedback', workflowId);
    return listed.length >= 1 && listed;
  });
  assert.is(runs.length, 1);
  expectStatus(await http(api, 'POST', `${wf(workflowId, runs[0].runId)}/terminate`, { json: {} }), 200);
});

test('a workflowId whose run closed can start again', async ({ api }) => {
  const first = await start(api, 'echo', { message: '1' }, uniqueId('st-again'));
  await waitUntil(api, first.workflowId, 'completed');
  const second = await start(api, 'echo', { message: '2' }, first.workflowId);
  assert.is.not(second.runId, first.runId);
  await waitUntil(api, first.workflowId, 'completed', second.runId);
  // Temporal's list may show a run a moment after its start or close (its visibility store lags): asked until it shows both.
  const runs = await eventually('the run list to show both runs', async () => {
    const listed = await runsOfId(api, 'echo', first.workflowId);
    return [first, second].every(({ runId }) => listed.some((run) => run.runId === runId)) && listed;
  });
  assert.is(runs.length, 2);
});

test('POST /workflow takes no timeout: 400, nothing started', async ({ api }) => {
  const workflowId = uniqueId('st-timeout');
  const response = await http(api, 'POST', '/workflow', { json: { workflowName: 'echo', workflowId, input: { message: 'x' }, timeout: 5 } });
  expectError(response, 400, 'ValidationError');
  expectIssueAt(response, 'timeout');
  await expectNothingStarted(api, workflowId, 'echo');
});

test.run();
