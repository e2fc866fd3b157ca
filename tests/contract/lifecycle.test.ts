import * as assert from 'uvu/assert';
import { uniqueId, waitForEvent } from '../support/http.js';
import {
  contractSuite,
  expectError,
  expectStatus,
  historyEvents,
  http,
  keys,
  runsOfId,
  runAndWait,
  snapshot,
  start,
  statusOf,
  UUID,
  waitUntil,
  wf,
} from '../support/contract.js';
import { eventually } from '../support/eventually.js';

/** Stop, terminate, reset and feedback. */
const test = contractSuite('stop, terminate, reset, feedback');

const stepNames = (events: any[], type: string): string[] =>
  events.filter((event) => event.type === type).map((event) => event.stepName);

test('stop cancels with clean-up: cancelled, and the clean-up step is in history', async ({ api }) => {
  const { workflowId, runId } = await start(api, 'cleans_up_on_stop', {}, uniqueId('lc-stop'));
  await waitForEvent(api, workflowId, 'timer_started');
  const response = await http(api, 'PATCH', `${wf(workflowId, runId)}/stop`);
  expectStatus(response, 200);
  assert.equal(response.body, { workflowId, runId });
  assert.is(response.headers['deprecation'], undefined, 'the pinned stop is not deprecated');
  await waitUntil(api, workflowId, 'cancelled');
  const events = await historyEvents(api, workflowId, runId);
  const types = events.map((event) => event.type);
  assert.ok(types.includes('workflow_cancel_requested'), types.join(', '));
  assert.ok(stepNames(events, 'step_completed').includes('clean_up'), 'the clean-up step ran after the stop');
  assert.is(types.at(-1), 'workflow_cancelled');
});

test('terminate is immediate: terminated, no clean-up step', async ({ api }) => {
  const { workflowId, runId } = await start(api, 'cleans_up_on_stop', {}, uniqueId('lc-term'));
  await waitForEvent(api, workflowId, 'timer_started');
  const response = await http(api, 'POST', `${wf(workflowId, runId)}/terminate`, { json: { reason: 'contract test' } });
  expectStatus(response, 200);
  assert.equal(response.body, { terminated: true, workflowId, runId });
  await waitUntil(api, workflowId, 'terminated');
  const events = await historyEvents(api, workflowId, runId);
  assert.is(events.at(-1).type, 'workflow_terminated');
  assert.is(events.at(-1).attributes.reason, 'contract test', 'the reason is recorded');
  assert.not.ok(stepNames(events, 'step_scheduled').includes('clean_up'), 'no clean-up after terminate');
});

test('stop and terminate on a closed run: 409 WorkflowClosedError, nothing changes', async ({ api }) => {
  const run = await runAndWait(api, { workflowName: 'echo', workflowId: uniqueId('lc-closed'), input: { message: 'x' } });
  const before = await snapshot(api, run.workflowId);
  const stop = await http(api, 'PATCH', `${wf(run.workflowId, run.runId)}/stop`);
  expectError(stop, 409, 'WorkflowClosedError', { workflowId: run.workflowId });
  const terminate = await http(api, 'POST', `${wf(run.workflowId, run.runId)}/terminate`, { json: { reason: 'late' } });
  expectError(terminate, 409, 'WorkflowClosedError', { workflowId: run.workflowId });
  assert.equal(await snapshot(api, run.workflowId), before);
  assert.is(before.status, 'completed');
});

test('stop and terminate pin the run: an older closed run of a reused id is 409, the open latest run untouched', async ({ api }) => {
  const workflowId = uniqueId('lc-pin');
  const older = await runAndWait(api, { workflowName: 'echo', workflowId, input: { message: 'older' } });
  const latest = await start(api, 'awaits_feedback', {}, workflowId);
  expectError(await http(api, 'PATCH', `${wf(workflowId, older.runId)}/stop`), 409, 'WorkflowClosedError', { workflowId });
  expectError(await http(api, 'POST', `${wf(workflowId, older.runId)}/terminate`, { json: {} }), 409, 'WorkflowClosedError', { workflowId });
  assert.is((await statusOf(api, workflowId, latest.runId)).body.status, 'running');
  const terminated = await http(api, 'POST', `${wf(workflowId, latest.runId)}/terminate`, { json: {} });
  assert.equal(terminated.body, { terminated: true, workflowId, runId: latest.runId });
  assert.is((await statusOf(api, workflowId, older.runId)).body.status, 'completed');
});

test('stop and terminate of an unknown execution or run: 404', async ({ api }) => {
  const missing = uniqueId('lc-missing');
  const rid = '5d0c7a8e-1b2f-4c3d-9e4f-5a6b7c8d9e0f';
  expectError(await http(api, 'PATCH', `${wf(missing, rid)}/stop`), 404, 'WorkflowNotFoundError', { maybeWorkflowId: missing });
  expectError(await http(api, 'POST', `${wf(missing, rid)}/terminate`, { json: {} }), 404, 'WorkflowNotFoundError', {
    maybeWorkflowId: missing,
  });
  const { workflowId, runId } = await start(api, 'awaits_feedback', {}, uniqueId('lc-other-run'));
  expectError(await http(api, 'PATCH', `${wf(workflowId, rid)}/stop`), 404, 'WorkflowNotFoundError', { maybeWorkflowId: workflowId });
  assert.is((await statusOf(api, workflowId, runId)).body.status, 'running', 'the real run was not touched');
  expectStatus(await http(api, 'POST', `${wf(workflowId, runId)}/terminate`), 200, 'terminate without a body');
});

test('reset of a closed arithmetic run to add_one: a new run that completes; the old run keeps its status', async ({ api }) => {
  const workflowId = uniqueId('lc-reset');
  const old = await runAndWait(api, { workflowName: 'arithmetic', workflowId, input: { n: 1 } });
  const response = await http(api, 'POST', `${wf(workflowId, old.runId)}/reset`, { json: { stepName: 'add_one', reason: 'contract' } });
  expectStatus(response, 200);
  assert.equal(keys(response.body), ['runId', 'workflowId']);
  assert.is(response.body.workflowId, workflowId);
  assert.match(response.body.runId, UUID);
  assert.is.not(response.body.runId, old.runId, 'the response names the NEW run');
  const newRunId = response.body.runId;

  await waitUntil(api, workflowId, 'completed', newRunId);
  const oldStatus = await statusOf(api, workflowId, old.runId);
  assert.is(oldStatus.body.status, 'completed', 'a closed run is not changed by a reset');
  const pinned = await http(api, 'GET', `${wf(workflowId, newRunId)}/result`);
  expectStatus(pinned, 200);
  assert.is(pinned.body.runId, newRunId);
  assert.is(pinned.body.status, 'completed');
  assert.equal(pinned.body.output, { result: 4 });
  const latest = await http(api, 'GET', `${wf(workflowId)}/result`);
  assert.is(latest.body.runId, newRunId, 'the new run is now the latest');
  const types = (await historyEvents(api, workflowId, newRunId)).map((event) => event.type);
  assert.ok(types.includes('workflow_reset'), types.join(', '));
  assert.is(types.at(-1), 'workflow_completed');
});

test('reset of an open run terminates it; the new run replays and waits again', async ({ api }) => {
  const { workflowId, runId } = await start(api, 'step_then_waits', { n: 10 }, uniqueId('lc-reset-open'));
  await waitForEvent(api, workflowId, 'step_completed');
  const response = await http(api, 'POST', `${wf(workflowId, runId)}/reset`, { json: { stepName: 'add_one' } });
  expectStatus(response, 200);
  const newRunId = response.body.runId;
  assert.is.not(newRunId, runId);
  assert.is((await waitUntil(api, workflowId, 'terminated', runId)).runId, runId, 'the old run is terminated');
  assert.is((await statusOf(api, workflowId)).body.runId, newRunId);
  assert.is((await statusOf(api, workflowId, newRunId)).body.status, 'running');
  const feedback = await http(api, 'POST', '/workflow/feedback', { json: { workflowId, payload: { go: 1 } } });
  expectStatus(feedback, 200);
  assert.equal(feedback.body, { workflowId, runId: newRunId });
  await waitUntil(api, workflowId, 'completed', newRunId);
  const result = await http(api, 'GET', `${wf(workflowId, newRunId)}/result`);
  assert.equal(result.body.output, { n: 11, reply: { go: 1 } });
});

test('reset of an older closed run terminates the open current execution of the id', async ({ api }) => {
  const workflowId = uniqueId('lc-reset-older');
  const older = await runAndWait(api, { workflowName: 'arithmetic', workflowId, input: { n: 3 } });
  const current = await start(api, 'awaits_feedback', {}, workflowId);
  const response = await http(api, 'POST', `${wf(workflowId, older.runId)}/reset`, { json: { stepName: 'double' } });
  expectStatus(response, 200);
  const newRunId = response.body.runId;
  assert.ok(![older.runId, current.runId].includes(newRunId), 'a new run');
  await waitUntil(api, workflowId, 'terminated', current.runId);
  await waitUntil(api, workflowId, 'completed', newRunId);
  assert.is((await statusOf(api, workflowId, older.runId)).body.status, 'completed');
  const result = await http(api, 'GET', `${wf(workflowId, newRunId)}/result`);
  assert.equal(result.body.output, { result: 8 });
  assert.is((await statusOf(api, workflowId)).body.runId, newRunId, 'the new run is the latest');
});

test('reset to a step that never ran: 404 StepNotFoundError; to one that never completed: 409; nothing changes', async ({ api }) => {
  const workflowId = uniqueId('lc-reset-bad');
  const run = await runAndWait(api, { workflowName: 'arithmetic', workflowId, input: { n: 1 } });
  const before = await snapshot(api, workflowId);
  const never = await http(api, 'POST', `${wf(workflowId, run.runId)}/reset`, { json: { stepName: 'reject_invoice' } });
  expectError(never, 404, 'StepNotFoundError', { workflowId });
  assert.equal(await snapshot(api, workflowId), before);
  // Temporal's list may show a run a moment after it closed (its visibility store lags): asked until it shows this one.
  const runs = await eventually('the run list to show the run', async () => {
    const listed = await runsOfId(api, 'arithmetic', workflowId);
    return listed.some((listedRun) => listedRun.runId === run.runId) && listed;
  });
  assert.is(runs.length, 1, 'no new run');

  const failing = await runAndWait(api, { workflowName: 'fails_in_step', workflowId: uniqueId('lc-reset-nc'), input: { reason: 'r' } });
  const failedBefore = await snapshot(api, failing.workflowId);
  const notCompleted = await http(api, 'POST', `${wf(failing.workflowId, failing.runId)}/reset`, { json: { stepName: 'reject_invoice' } });
  expectError(notCompleted, 409, 'StepNotCompletedError', { workflowId: failing.workflowId });
  assert.equal(await snapshot(api, failing.workflowId), failedBefore);

  const missing = uniqueId('lc-reset-missing');
  const unknown = await http(api, 'POST', `${wf(missing, run.runId)}/reset`, { json: { stepName: 'add_one' } });
  expectError(unknown, 404, 'WorkflowNotFoundError', { maybeWorkflowId: missing });
});

test('feedback is delivered to the waiting run, which completes with the payload', async ({ api }) => {
  const { workflowId, runId } = await start(api, 'awaits_feedback', {}, uniqueId('lc-fb'));
  const payload = { approved: true, comment: 'fine', items: [1, 2] };
  const response = await http(api, 'POST', '/workflow/feedback', { json: { workflowId, payload } });
  expectStatus(response, 200);
  assert.equal(response.body, { workflowId, runId });
  await waitUntil(api, workflowId, 'completed');
  const result = await http(api, 'GET', `${wf(workflowId)}/result`);
  assert.equal(result.body.output, { reply: payload });
  const signals = (await historyEvents(api, workflowId, runId)).filter((event) => event.type === 'signal_received');
  assert.is(signals.length, 1);
});

test('feedback sent before the run reaches its wait is buffered and used', async ({ api }) => {
  const { workflowId, runId } = await start(api, 'sleeps_then_awaits', { ms: 1500 }, uniqueId('lc-fb-early'));
  const response = await http(api, 'POST', '/workflow/feedback', { json: { workflowId, payload: { early: true } } });
  expectStatus(response, 200);
  assert.equal(response.body, { workflowId, runId });
  await waitUntil(api, workflowId, 'completed');
  const result = await http(api, 'GET', `${wf(workflowId)}/result`);
  assert.equal(result.body.output, { reply: { early: true } });
  const types = (await historyEvents(api, workflowId, runId)).map((event) => event.type);
  assert.ok(
    types.indexOf('signal_received') !== -1 && types.indexOf('signal_received') < types.indexOf('timer_fired'),
    `the reply arrived while the run was still sleeping: ${types.join(', ')}`,
  );
});

test('feedback to a closed run: 409 WorkflowClosedError; unknown id: 404', async ({ api }) => {
  const { workflowId } = await start(api, 'awaits_feedback', {}, uniqueId('lc-fb-closed'));
  expectStatus(await http(api, 'POST', '/workflow/feedback', { json: { workflowId, payload: { n: 1 } } }), 200);
  await waitUntil(api, workflowId, 'completed');
  const before = await snapshot(api, workflowId);
  const closed = await http(api, 'POST', '/workflow/feedback', { json: { workflowId, payload: { n: 2 } } });
  expectError(closed, 409, 'WorkflowClosedError', { workflowId });
  assert.match(closed.body.message, /takes no more feedback: it had already taken a reply \(history event \d+, .+\) and has closed \(completed\)$/);
  assert.equal(await snapshot(api, workflowId), before);
  const result = await http(api, 'GET', `${wf(workflowId)}/result`);
  assert.equal(result.body.output, { reply: { n: 1 } });

  const missing = uniqueId('lc-fb-missing');
  const unknown = await http(api, 'POST', '/workflow/feedback', { json: { workflowId: missing, payload: {} } });
  expectError(unknown, 404, 'WorkflowNotFoundError', { maybeWorkflowId: missing });
  expectError(await statusOf(api, missing), 404, 'WorkflowNotFoundError', { maybeWorkflowId: missing });
});

test('two replies at once to a run that waits for one: each is taken (recorded) or refused (409); the run reads the first taken', async ({ api }) => {
  for (let round = 0; round < 3; round += 1) {
    const { workflowId } = await start(api, 'awaits_feedback', {}, uniqueId('lc-fb-race'));
    await waitForEvent(api, workflowId, 'feedback_wait_started');
    const answers = await Promise.all([1, 2].map((n) => http(api, 'POST', '/workflow/feedback', { json: { workflowId, payload: { n } } })));
    for (const answer of answers) {
      if (answer.status === 409) expectError(answer, 409, 'WorkflowClosedError', { workflowId });
      else expectStatus(answer, 200, `round ${round}`);
    }
    await waitUntil(api, workflowId, 'completed');
    const history = await http(api, 'GET', `${wf(workflowId)}/history?pageSize=200`);
    const recorded = history.body.events.filter((event: { type: string }) => event.type === 'signal_received').map((event: any) => event.attributes.payload.n);
    const taken = answers.flatMap((answer, index) => (answer.status === 200 ? [index + 1] : []));
    // A reply answered 200 is never lost, one refused never recorded; both engines buffer replies as Temporal does.
    assert.equal([...recorded].sort(), taken, `round ${round}: recorded ${recorded.join(', ')}, answered 200 ${taken.join(', ')}`);
    assert.equal((await http(api, 'GET', `${wf(workflowId)}/result`)).body.output, { reply: { n: recorded[0] } });
  }
});

/** A 409 to a reply says what happened: the reply the run took (an event of its history) and how it ended. */
const REFUSED_REPLY = /^Workflow (.+) run (\S+) takes no more feedback: it had already taken a reply \(history event (\d+), (\S+)\) and has closed \(completed\)$/;

test('racing replies to a run that waits for one: each is taken or refused, and a refusal says the run took a reply and closed', async ({ api }) => {
  const { workflowId, runId } = await start(api, 'awaits_feedback', {}, uniqueId('lc-fb-race'));
  // Sent at once and a little apart, so that some land while the run is closing and some once it has closed.
  const replies = await Promise.all(
    Array.from({ length: 8 }, async (_, n) => {
      await new Promise((resolve) => setTimeout(resolve, n < 4 ? 0 : (n - 3) * 60));
      return { n, response: await http(api, 'POST', '/workflow/feedback', { json: { workflowId, payload: { n } } }) };
    }),
  );
  await waitUntil(api, workflowId, 'completed');
  const late = await http(api, 'POST', '/workflow/feedback', { json: { workflowId, payload: { n: 'late' } } });
  const events = await historyEvents(api, workflowId, runId);
  const result = await http(api, 'GET', `${wf(workflowId)}/result`);
  const taken = events.find((event) => event.type === 'signal_received' && event.attributes.payload.n === result.body.output.reply.n);
  assert.ok(taken, `the reply the run returned is in its history: ${JSON.stringify(result.body.output)}`);
  const accepted = replies.filter(({ response }) => response.status === 200);
  assert.ok(accepted.length >= 1, 'one reply at least was taken');
  for (const { response } of accepted) assert.equal(response.body, { workflowId, runId });
  const refused = [...replies.map(({ response }) => response).filter((response) => response.status !== 200), late];
  for (const response of refused) {
    expectError(response, 409, 'WorkflowClosedError', { workflowId });
    const [, id, rid, eventId] = REFUSED_REPLY.exec(response.body.message) ?? [];
    assert.ok(eventId, `the refusal says what happened: ${response.body.message}`);
    assert.equal([id, rid], [workflowId, runId]);
    const event = events.find((candidate) => candidate.eventId === Number(eventId));
    assert.is(event?.type, 'signal_received', `history event ${eventId} is a reply the run took`);
  }
});

test.run();
