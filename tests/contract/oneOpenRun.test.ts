import * as assert from 'uvu/assert';
import { uniqueId, waitForEvent } from '../support/http.js';
import type { TestResponse } from '../support/http.js';
import { contractSuite, expectError, expectStatus, http, runsOfId, start, statusOf, UUID, waitUntil, wf } from '../support/contract.js';
import type { TestApi } from '../support/engines.js';
import { eventually } from '../support/eventually.js';

/**
 * At most one open run per workflowId, whatever mix of concurrent resets, starts, stops and terminates reaches it
 * (docs/api.md, reset). Every request below is in flight at the same time, each on its own connection.
 */
const test = contractSuite('one open run per workflowId');

const WORKFLOW = 'step_then_waits';

/** The runs of the id once the run list shows `expected` of them (Temporal's visibility lags a little). */
async function settledRuns(api: TestApi, workflowId: string, expected: number): Promise<any[]> {
  let runs: any[] = [];
  const settled = async (): Promise<boolean> => {
    runs = await runsOfId(api, WORKFLOW, workflowId);
    return runs.length >= expected && runs.filter((run) => run.status === 'running').length <= 1;
  };
  // Past 30 s the list is returned as it is: the caller's assertions say what is wrong with it.
  await eventually(`${expected} runs of ${workflowId}, at most one open`, settled, { timeoutMs: 30_000, intervalMs: 100 }).catch(() => undefined);
  return runs;
}

/**
 * What every race must leave: exactly one open run of the id, named by status; a start with the id is 409 while it
 * runs; feedback reaches that run, which completes with it; every other run of the id is closed.
 */
async function expectOneOpenRun(api: TestApi, workflowId: string, expectedRuns: number, candidates: Set<string>): Promise<void> {
  const runs = await settledRuns(api, workflowId, expectedRuns);
  const open = runs.filter((run) => run.status === 'running');
  assert.is(open.length, 1, `exactly one open run of ${workflowId}; the run list shows ${runs.map((run) => `${run.runId}:${run.status}`).join(', ')}`);
  const openRunId: string = open[0].runId;
  assert.ok(candidates.has(openRunId), `the open run ${openRunId} is one a request answered with`);
  const status = await statusOf(api, workflowId);
  expectStatus(status, 200);
  assert.is(status.body.runId, openRunId, 'the id form names the open run');
  assert.is(status.body.status, 'running');

  const again = await http(api, 'POST', '/workflow', { json: { workflowName: WORKFLOW, workflowId, input: { n: 0 } } });
  expectError(again, 409, 'WorkflowAlreadyStartedError', { workflowId });

  // The open run may still be replaying up to its wait: feedback is buffered until it gets there.
  const feedback = await http(api, 'POST', '/workflow/feedback', { json: { workflowId, payload: { winner: true } } });
  expectStatus(feedback, 200, 'feedback to the open run');
  assert.equal(feedback.body, { workflowId, runId: openRunId }, 'feedback reaches the open run');
  await waitUntil(api, workflowId, 'completed', openRunId);
  const result = await http(api, 'GET', `${wf(workflowId, openRunId)}/result`);
  assert.equal(result.body.output?.reply, { winner: true });

  for (const run of await runsOfId(api, WORKFLOW, workflowId)) {
    if (run.runId === openRunId) continue;
    const closed = await statusOf(api, workflowId, run.runId);
    assert.ok(['terminated', 'cancelled', 'completed'].includes(closed.body.status), `run ${run.runId} is closed: ${closed.text}`);
  }
}

/**
 * An open run of a new id whose workflow has seen its step's result. On Temporal a run closed (terminated, stopped)
 * after the step completed but before its workflow saw the result has no point after the step to reset to (409); a
 * reset of the open run waits until the workflow saw it, and the run it makes holds that point however soon it closes.
 * Two runs of the id exist after this: the first, terminated by the reset, and the one returned.
 */
async function runPastItsStep(api: TestApi, prefix: string): Promise<{ workflowId: string; runId: string }> {
  const workflowId = uniqueId(prefix);
  const first = await start(api, WORKFLOW, { n: 1 }, workflowId);
  await waitForEvent(api, workflowId, 'step_completed');
  const reset = await http(api, 'POST', `${wf(workflowId, first.runId)}/reset`, { json: { stepName: 'add_one' } });
  expectStatus(reset, 200, 'the reset before the race');
  return { workflowId, runId: reset.body.runId };
}

function answeredRunIds(responses: TestResponse[]): string[] {
  return responses.filter((response) => response.status === 200).map((response) => response.body.runId as string);
}

test('20 parallel resets of an open run: all 200, each a new run; one run stays open, and feedback reaches it', async ({ api }) => {
  const { workflowId, runId } = await start(api, WORKFLOW, { n: 1 }, uniqueId('one-open-resets'));
  await waitForEvent(api, workflowId, 'step_completed');

  const resets = await Promise.all(
    Array.from({ length: 20 }, (_, index) => http(api, 'POST', `${wf(workflowId, runId)}/reset`, { json: { stepName: 'add_one', reason: `race ${index}` } })),
  );
  for (const reset of resets) expectStatus(reset, 200, 'a reset in the race');
  const newRuns = answeredRunIds(resets);
  for (const newRun of newRuns) assert.match(newRun, UUID);
  assert.is(new Set(newRuns).size, 20, 'each reset made its own run');
  assert.not.ok(newRuns.includes(runId));

  await expectOneOpenRun(api, workflowId, 21, new Set(newRuns));
  assert.is((await statusOf(api, workflowId, runId)).body.status, 'terminated', 'the reset run was terminated');
});

test('resets, starts, stops and terminates of one id at once: one open run, every loser a documented 409', async ({ api }) => {
  const { workflowId, runId } = await runPastItsStep(api, 'one-open-mix');
  const resetBody = (index: number) => ({ json: { stepName: 'add_one', reason: `mix ${index}` } });
  const keyed = { json: { stepName: 'add_one', reason: 'keyed' }, headers: { 'idempotency-key': uniqueId('one-open-key') } };

  const requests: { kind: string; response: Promise<TestResponse> }[] = [];
  for (let index = 0; index < 24; index += 1) {
    const kind = ['reset', 'start', 'reset', 'stop', 'reset', 'terminate', 'keyed reset', 'reset'][index % 8]!;
    const response =
      kind === 'reset' ? http(api, 'POST', `${wf(workflowId, runId)}/reset`, resetBody(index))
      : kind === 'keyed reset' ? http(api, 'POST', `${wf(workflowId, runId)}/reset`, keyed)
      : kind === 'start' ? http(api, 'POST', '/workflow', { json: { workflowName: WORKFLOW, workflowId, input: { n: index } } })
      : kind === 'stop' ? http(api, 'PATCH', `${wf(workflowId, runId)}/stop`)
      : http(api, 'POST', `${wf(workflowId, runId)}/terminate`, { json: { reason: `mix ${index}` } });
    requests.push({ kind, response });
  }
  const answers = await Promise.all(requests.map(async ({ kind, response }) => ({ kind, response: await response })));

  const made = new Set<string>();
  const keyedRuns = new Set<string>();
  for (const { kind, response } of answers) {
    if (kind === 'reset' || kind === 'keyed reset') {
      expectStatus(response, 200, kind);
      made.add(response.body.runId);
      if (kind === 'keyed reset') keyedRuns.add(response.body.runId);
    } else if (kind === 'start') {
      if (response.status === 200) made.add(response.body.runId);
      else expectError(response, 409, 'WorkflowAlreadyStartedError', { workflowId });
    } else if (response.status !== 200) {
      expectError(response, 409, 'WorkflowClosedError', { workflowId });
    }
  }
  assert.is(keyedRuns.size, 1, 'the resets sharing an Idempotency-Key made one run and all got it');

  await expectOneOpenRun(api, workflowId, made.size + 2, made);
});

test('resets and starts racing on an id with no open run: one open run', async ({ api }) => {
  const { workflowId, runId: closed } = await runPastItsStep(api, 'one-open-closed');
  expectStatus(await http(api, 'POST', `${wf(workflowId, closed)}/terminate`, { json: { reason: 'before the race' } }), 200);
  await waitUntil(api, workflowId, 'terminated', closed);

  const answers = await Promise.all(
    Array.from({ length: 16 }, (_, index) =>
      index % 4 === 1
        ? http(api, 'POST', '/workflow', { json: { workflowName: WORKFLOW, workflowId, input: { n: index } } })
        : http(api, 'POST', `${wf(workflowId, closed)}/reset`, { json: { stepName: 'add_one' } }),
    ),
  );
  const made = new Set<string>();
  answers.forEach((response, index) => {
    if (index % 4 !== 1) expectStatus(response, 200, 'a reset');
    else if (response.status !== 200) expectError(response, 409, 'WorkflowAlreadyStartedError', { workflowId });
    if (response.status === 200) made.add(response.body.runId);
  });
  assert.ok(made.size >= 12, 'every reset made a run');

  await expectOneOpenRun(api, workflowId, made.size + 2, made);
});

test.run();
