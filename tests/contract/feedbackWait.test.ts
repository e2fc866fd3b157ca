import * as assert from 'uvu/assert';
import { uniqueId, waitForEvent } from '../support/http.js';
import { contractSuite, expectStatus, historyEvents, http, start, waitUntil, wf } from '../support/contract.js';
import { eventually } from '../support/eventually.js';
import { restartableEngineUnderTest } from '../support/engines.js';

/**
 * docs/api.md, History: `feedback_wait_started`, recorded by both engines when a webhook wait begins for real, once
 * per wait: not for a wait a buffered reply serves at once, not again when a restart resumes it.
 */
// One test restarts the API.
const test = contractSuite('feedback waits in the history', {}, { engine: restartableEngineUnderTest() });

const types = (events: { type: string }[]): string[] => events.map((event) => event.type);
const waitsOf = (events: any[]): any[] => events.filter((event) => event.type === 'feedback_wait_started');

test('a wait that begins is feedback_wait_started, after the step before it; the reply that serves it comes after', async ({ api }) => {
  const run = await start(api, 'step_then_waits', { n: 1 }, uniqueId('fw-begins'));
  await waitForEvent(api, run.workflowId, 'feedback_wait_started');
  const waiting = await historyEvents(api, run.workflowId, run.runId);
  assert.is(waiting.at(-1).type, 'feedback_wait_started', `the last event while it waits: ${types(waiting).join(' ')}`);
  assert.equal(waiting.at(-1).attributes, {}, 'no time limit');
  assert.not.ok('stepName' in waiting.at(-1));
  expectStatus(await http(api, 'POST', '/workflow/feedback', { json: { workflowId: run.workflowId, payload: { ok: true } } }), 200);
  await waitUntil(api, run.workflowId, 'completed');
  const all = types(await historyEvents(api, run.workflowId, run.runId));
  const at = (type: string) => all.indexOf(type);
  assert.ok(at('step_completed') < at('feedback_wait_started'), all.join(' '));
  assert.ok(at('feedback_wait_started') < at('signal_received'), all.join(' '));
  assert.is(all.filter((type) => type === 'feedback_wait_started').length, 1);
});

test('a wait with a time limit names it', async ({ api }) => {
  const run = await start(api, 'awaits_feedback', { timeoutMs: 600_000 }, uniqueId('fw-limit'));
  await waitForEvent(api, run.workflowId, 'feedback_wait_started');
  assert.equal(waitsOf(await historyEvents(api, run.workflowId, run.runId)).map((event) => event.attributes), [{ timeoutMs: 600_000 }]);
  expectStatus(await http(api, 'POST', '/workflow/feedback', { json: { workflowId: run.workflowId, payload: {} } }), 200);
  await waitUntil(api, run.workflowId, 'completed');
});

test('a reply that arrived before the wait serves it at once: no feedback_wait_started', async ({ api }) => {
  const run = await start(api, 'sleeps_then_awaits', { ms: 1_500 }, uniqueId('fw-buffered'));
  expectStatus(await http(api, 'POST', '/workflow/feedback', { json: { workflowId: run.workflowId, payload: { early: true } } }), 200);
  await waitUntil(api, run.workflowId, 'completed');
  const events = await historyEvents(api, run.workflowId, run.runId);
  assert.equal(waitsOf(events), [], types(events).join(' '));
  assert.ok(types(events).indexOf('signal_received') < types(events).indexOf('timer_fired'), 'the reply came before the wait');
});

test('a wait resumed after a restart is not recorded again', async ({ api }) => {
  const run = await start(api, 'awaits_feedback', {}, uniqueId('fw-restart'));
  await waitForEvent(api, run.workflowId, 'feedback_wait_started');
  await api.restart();
  expectStatus(await http(api, 'POST', '/workflow/feedback', { json: { workflowId: run.workflowId, payload: { after: 'restart' } } }), 200);
  await waitUntil(api, run.workflowId, 'completed');
  const events = await historyEvents(api, run.workflowId, run.runId);
  assert.is(waitsOf(events).length, 1, types(events).join(' '));
  assert.ok(types(events).indexOf('feedback_wait_started') < types(events).indexOf('signal_received'));
});

test('a reset to before a wait: the new run waits again and records it once, after workflow_reset', async ({ api }) => {
  const run = await start(api, 'step_then_waits', { n: 1 }, uniqueId('fw-reset'));
  await waitForEvent(api, run.workflowId, 'feedback_wait_started');
  const reset = await http(api, 'POST', `${wf(run.workflowId, run.runId)}/reset`, { json: { stepName: 'add_one' } });
  expectStatus(reset, 200);
  await waitForEvent(api, run.workflowId, 'feedback_wait_started');
  const events = await eventually('the new run\'s feedback wait in its history', async () => {
    const history = await historyEvents(api, run.workflowId, reset.body.runId);
    return waitsOf(history).length > 0 ? history : undefined;
  }, { intervalMs: 50 });
  assert.is(waitsOf(events).length, 1, types(events).join(' '));
  assert.ok(types(events).indexOf('workflow_reset') < types(events).indexOf('feedback_wait_started'), types(events).join(' '));
  expectStatus(await http(api, 'POST', '/workflow/feedback', { json: { workflowId: run.workflowId, payload: {} } }), 200);
  await waitUntil(api, run.workflowId, 'completed', reset.body.runId);
});

test.run();
