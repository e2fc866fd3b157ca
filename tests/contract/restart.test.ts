import * as assert from 'uvu/assert';
import { contractSuite, expectError, expectStatus, historyEvents, http, listAllRuns, start, statusOf, wf } from '../support/contract.js';
import { uniqueId } from '../support/http.js';
import { eventually } from '../support/eventually.js';
import { restartableEngineUnderTest } from '../support/engines.js';

/**
 * A restart of the API (and, on Temporal, of its workers) loses no run: runs of every kind started before it are
 * found after it, with their run ids, and finish; feedback sent after the restart reaches a run that waited before.
 * On the embedded engine the runs live in the data directory and this process resumes them; on Temporal they never
 * depended on the API process.
 */
const test = contractSuite('a restart of the API', {}, { engine: restartableEngineUnderTest() });

const withKey = (key: string, json: unknown) => ({ json, headers: { 'idempotency-key': key } });

/** The run's result once it closed (a long-poll). */
async function resultOf(api: Parameters<typeof http>[0], workflowId: string, runId?: string): Promise<any> {
  let last: Awaited<ReturnType<typeof http>> | undefined;
  // Each question is a long-poll of up to 10 s: asked again at once.
  return eventually(
    () => `${workflowId} to close; last answer ${last?.status} ${JSON.stringify(last?.body)}`,
    async () => {
      last = await http(api, 'GET', `${wf(workflowId, runId)}/result?wait=10`);
      return last.status === 200 ? last.body : undefined;
    },
    { timeoutMs: 60_000, intervalMs: 0 },
  );
}

/** Waits until the run's history holds an event of `type` (what must have happened before the restart). */
async function historyHas(api: Parameters<typeof http>[0], workflowId: string, type: string): Promise<void> {
  await eventually(`${workflowId} to record ${type}`, async () => (await historyEvents(api as never, workflowId)).some((event) => event.type === type), {
    timeoutMs: 30_000,
    intervalMs: 100,
  });
}

function expectContiguousIds(events: { eventId: number }[], what: string): void {
  assert.equal(
    events.map((event) => event.eventId),
    events.map((_event, index) => index + 1),
    `${what}: event ids 1..n, no gap and no repeat`,
  );
}

test('runs of every kind started before a restart are found after it, with their run ids, and finish', async ({ api }) => {
  const completed = await http(api, 'POST', '/workflow/run', { json: { workflowName: 'arithmetic', input: { n: 4 }, workflowId: uniqueId('rs-done') } });
  expectStatus(completed, 200, 'run-and-wait before the restart');
  const sleeping = await start(api, 'sleeper', { ms: 4_000 }, uniqueId('rs-sleep'));
  const waiting = await start(api, 'awaits_feedback', {}, uniqueId('rs-wait'));
  const buffered = await start(api, 'sleeps_then_awaits', { ms: 2_500 }, uniqueId('rs-buffered'));
  expectStatus(await http(api, 'POST', '/workflow/feedback', { json: { workflowId: buffered.workflowId, payload: { early: true } } }), 200, 'a reply before the wait');
  const parent = await start(api, 'parent_of_sleeper', { ms: 3_000 }, uniqueId('rs-parent'));
  const chain = await start(api, 'continues_into_wait', { ms: 1_500 }, uniqueId('rs-chain'));
  const keyBody = { workflowName: 'awaits_feedback', input: {}, workflowId: uniqueId('rs-keyed') };
  const key = uniqueId('rs-key');
  const keyed = await http(api, 'POST', '/workflow', withKey(key, keyBody));
  expectStatus(keyed, 200, 'a keyed start');
  await historyHas(api, sleeping.workflowId, 'timer_started');
  await historyHas(api, parent.workflowId, 'child_started');
  await historyHas(api, waiting.workflowId, 'workflow_started');

  await api.restart();

  const done = await statusOf(api, completed.body.workflowId);
  expectStatus(done, 200, 'status of the completed run');
  assert.is(done.body.runId, completed.body.runId);
  assert.is(done.body.status, 'completed');
  assert.equal((await resultOf(api, completed.body.workflowId)).output, { result: 10 });
  const doneHistory = await historyEvents(api, completed.body.workflowId);
  assert.is(doneHistory.at(-1)?.type, 'workflow_completed');
  expectContiguousIds(doneHistory, 'the completed run');
  const trace = await http(api, 'GET', `${wf(completed.body.workflowId, completed.body.runId)}/trace-log`);
  expectStatus(trace, 200, 'the trace-log of a run closed before the restart');
  // Temporal's list may show a run a moment after it closed (its visibility store lags): asked until it shows this one.
  const listed = await eventually('the run list to show the run closed before the restart', async () => {
    const runs = await listAllRuns(api, { workflowName: 'arithmetic' });
    return runs.some((run) => run.runId === completed.body.runId) && runs;
  });
  assert.ok(listed.some((run) => run.runId === completed.body.runId), 'the runs list has the run closed before the restart');

  const slept = await resultOf(api, sleeping.workflowId);
  assert.is(slept.runId, sleeping.runId, 'the sleeping run finished as itself');
  assert.equal(slept.output, { slept: 4_000 });
  const sleepHistory = await historyEvents(api, sleeping.workflowId);
  expectContiguousIds(sleepHistory, 'the sleeping run');
  assert.is(sleepHistory.filter((event) => event.type === 'timer_started').length, 1, 'one timer, not started again');

  expectStatus(await http(api, 'POST', '/workflow/feedback', { json: { workflowId: waiting.workflowId, payload: { late: true } } }), 200, 'feedback after the restart');
  const replied = await resultOf(api, waiting.workflowId);
  assert.is(replied.runId, waiting.runId);
  assert.equal(replied.output, { reply: { late: true } });

  assert.equal((await resultOf(api, buffered.workflowId)).output, { reply: { early: true } }, 'a reply buffered before the restart is delivered');

  const family = await resultOf(api, parent.workflowId);
  assert.equal(family.output, { child: { slept: 3_000 } });
  const parentHistory = await historyEvents(api, parent.workflowId);
  assert.is(parentHistory.filter((event) => event.type === 'child_started').length, 1, 'the child was started once');
  expectContiguousIds(parentHistory, 'the parent');

  await historyHas(api, chain.workflowId, 'workflow_started');
  const chainStatus = await http(api, 'GET', `${wf(chain.workflowId)}/status`);
  expectStatus(chainStatus, 200);
  // The chain's first run sleeps, then continues into a run that waits: the feedback goes to whichever is latest.
  await eventually('the chain to continue as new after the restart', async () => (await statusOf(api, chain.workflowId)).body.runId !== chain.runId, {
    timeoutMs: 30_000,
    intervalMs: 100,
  });
  await historyHas(api, chain.workflowId, 'workflow_started');
  expectStatus(await http(api, 'POST', '/workflow/feedback', { json: { workflowId: chain.workflowId, payload: { go: true } } }), 200);
  assert.equal((await resultOf(api, chain.workflowId)).output, { reply: { go: true } });

  const retried = await http(api, 'POST', '/workflow', withKey(key, keyBody));
  expectStatus(retried, 200, 'the keyed start retried after the restart');
  assert.is(retried.body.runId, keyed.body.runId, 'the same run, not a new one');
  expectStatus(await http(api, 'POST', '/workflow/feedback', { json: { workflowId: keyBody.workflowId, payload: { n: 1 } } }), 200);
});

test('a keyed feedback retried after a restart is recognised, not delivered twice', async ({ api }) => {
  const run = await start(api, 'step_then_waits', { n: 1 }, uniqueId('rs-keyed-feedback'));
  const key = uniqueId('rs-feedback-key');
  const body = { workflowId: run.workflowId, payload: { approved: true } };
  expectStatus(await http(api, 'POST', '/workflow/feedback', withKey(key, body)), 200, 'the first feedback');
  await historyHas(api, run.workflowId, 'workflow_completed');
  await api.restart();
  const retried = await http(api, 'POST', '/workflow/feedback', withKey(key, body));
  expectStatus(retried, 200, 'the retry after the restart answers as the first time');
  assert.equal(retried.body.runId, run.runId);
  const signals = (await historyEvents(api, run.workflowId)).filter((event) => event.type === 'signal_received');
  assert.is(signals.length, 1, 'delivered once');
});

test('a keyed terminate and a keyed reset retried after a restart get their first answer; another body with the key is 409', async ({ api }) => {
  const open = await start(api, 'awaits_feedback', {}, uniqueId('rs-keyed-terminate'));
  const terminatePath = `${wf(open.workflowId, open.runId)}/terminate`;
  const terminateKey = uniqueId('rs-terminate-key');
  const terminated = await http(api, 'POST', terminatePath, withKey(terminateKey, { reason: 'once' }));
  expectStatus(terminated, 200, 'the keyed terminate');
  const resetId = uniqueId('rs-keyed-reset');
  const old = await http(api, 'POST', '/workflow/run', { json: { workflowName: 'arithmetic', workflowId: resetId, input: { n: 1 } } });
  expectStatus(old, 200);
  const resetPath = `${wf(resetId, old.body.runId)}/reset`;
  const resetKey = uniqueId('rs-reset-key');
  const reset = await http(api, 'POST', resetPath, withKey(resetKey, { stepName: 'add_one' }));
  expectStatus(reset, 200, 'the keyed reset');
  await resultOf(api, resetId, reset.body.runId);

  await api.restart();

  const terminateRetry = await http(api, 'POST', terminatePath, withKey(terminateKey, { reason: 'once' }));
  expectStatus(terminateRetry, 200, 'the same answer, not WorkflowClosedError');
  assert.equal(terminateRetry.body, terminated.body);
  expectError(await http(api, 'POST', terminatePath, withKey(terminateKey, { reason: 'other' })), 409, 'IdempotencyKeyReusedError', { workflowId: null });
  const resetRetry = await http(api, 'POST', resetPath, withKey(resetKey, { stepName: 'add_one' }));
  expectStatus(resetRetry, 200);
  assert.equal(resetRetry.body, reset.body, 'the run the first reset made, not another reset');
  expectError(await http(api, 'POST', resetPath, withKey(resetKey, { stepName: 'double' })), 409, 'IdempotencyKeyReusedError');
  assert.is((await statusOf(api, resetId)).body.runId, reset.body.runId, 'no second reset run');
});

test.run();
