import * as assert from 'uvu/assert';
import { uniqueId } from '../support/http.js';
import { contractSuite, expectError, expectIssueAt, expectStatus, http, wf, type Started } from '../support/contract.js';
import { TestKeyFile, testKey, type TestKey } from '../support/keyFiles.js';
import type { TestApi } from '../support/engines.js';
import { eventually } from '../support/eventually.js';

/*
 * Who did what (docs/security.md): the API key that starts a run is its `startedBy` (status, runs list, history
 * metadata, `?startedBy=`), and the key that feeds back, stops, terminates, resets or reruns it is the `identity` of
 * that change's history event. On Temporal the identity travels in Temporal's own identity field of each request.
 */
const starter = testKey('nightly-ci', ['start', 'read']);
const operator = testKey('operator.on-call', ['read', 'start', 'control']);
const keyFile = new TestKeyFile([starter, operator]);
const test = contractSuite('who did what', { API_KEYS_FILE: keyFile.path });
test.after(() => keyFile.remove());

const as = (key: TestKey) => ({ headers: key.headers });

async function startAs(api: TestApi, key: TestKey, workflowName: string, input: unknown): Promise<Started> {
  const response = await http(api, 'POST', '/workflow', { json: { workflowName, workflowId: uniqueId(`who-${workflowName}`), input }, ...as(key) });
  expectStatus(response, 200, `start ${workflowName}`);
  return { workflowId: response.body.workflowId, runId: response.body.runId };
}

async function events(api: TestApi, run: Started): Promise<any[]> {
  const response = await http(api, 'GET', `${wf(run.workflowId, run.runId)}/history?pageSize=200`, as(operator));
  expectStatus(response, 200, 'history');
  return response.body.events;
}

/** Polls the run's history until an event of `type` is there; returns it. */
async function eventOf(api: TestApi, run: Started, type: string): Promise<any> {
  return eventually(`a ${type} event in ${run.workflowId} ${run.runId}`, async () => (await events(api, run)).find((event) => event.type === type), { intervalMs: 50 });
}

async function statusOf(api: TestApi, run: Started): Promise<any> {
  const response = await http(api, 'GET', `${wf(run.workflowId, run.runId)}/status`, as(operator));
  expectStatus(response, 200, 'status');
  return response.body;
}

async function waitFor(api: TestApi, run: Started, status: string): Promise<void> {
  await eventually(`${run.workflowId} ${run.runId} to become ${status}`, async () => (await statusOf(api, run)).status === status, { intervalMs: 50 });
}

test('the starting key is startedBy in status, history metadata and runs list, and ?startedBy= filters by it', async ({ api }) => {
  const mine = await startAs(api, starter, 'awaits_feedback', {});
  const theirs = await startAs(api, operator, 'awaits_feedback', {});
  assert.is((await statusOf(api, mine)).startedBy, 'nightly-ci');
  assert.is((await statusOf(api, theirs)).startedBy, 'operator.on-call');
  const history = await http(api, 'GET', `${wf(mine.workflowId, mine.runId)}/history`, as(starter));
  assert.is(history.body.workflow.startedBy, 'nightly-ci', 'history metadata');
  assert.is(history.body.events[0].type, 'workflow_started');
  assert.is(history.body.events[0].attributes.identity, 'nightly-ci', 'the start event names the key');

  // Temporal's list may show a run a moment after its start (its visibility store lags): each list is asked until it
  // shows the run it must; both runs are listed before the filters are asked, so a run a filter leaves out is not merely late.
  const listing = (path: string, shown: Started[], who: TestKey) =>
    eventually(`${path} to list ${shown.map((run) => run.runId).join(' and ')}`, async () => {
      const response = await http(api, 'GET', path, as(who));
      expectStatus(response, 200);
      return shown.every((run) => response.body.runs.some((listed: any) => listed.runId === run.runId)) && response;
    });
  const listed = await listing('/workflow/runs?workflowName=awaits_feedback&limit=1000', [mine, theirs], starter);
  const item = listed.body.runs.find((run: any) => run.runId === mine.runId);
  assert.is(item?.startedBy, 'nightly-ci', 'runs list item');

  const filtered = await listing('/workflow/runs?startedBy=nightly-ci&limit=1000', [mine], starter);
  const ids = filtered.body.runs.map((run: any) => run.runId);
  assert.ok(ids.includes(mine.runId), 'its own run is listed');
  assert.not.ok(ids.includes(theirs.runId), "another key's run is not");
  assert.ok(filtered.body.runs.every((run: any) => run.startedBy === 'nightly-ci'), 'only its runs');
  const combined = await listing('/workflow/runs?startedBy=operator.on-call&status=running&workflowName=awaits_feedback', [theirs], operator);
  assert.ok(combined.body.runs.some((run: any) => run.runId === theirs.runId), 'combined with the other filters');
  assert.not.ok(combined.body.runs.some((run: any) => run.runId === mine.runId));
  for (const run of [mine, theirs]) expectStatus(await http(api, 'POST', `${wf(run.workflowId, run.runId)}/terminate`, { json: {}, ...as(operator) }), 200);
});

test('a startedBy that is no key id: 400 ValidationError naming it', async ({ api }) => {
  for (const bad of ['two words', '', 'x'.repeat(65), 'a:b']) {
    const response = await http(api, 'GET', `/workflow/runs?startedBy=${encodeURIComponent(bad)}`, as(starter));
    expectError(response, 400, 'ValidationError');
    expectIssueAt(response, 'startedBy');
  }
});

test('feedback, reset and rerun record the key that made them; the run keeps its starter', async ({ api }) => {
  const first = await startAs(api, starter, 'step_then_waits', { n: 10 });
  await eventOf(api, first, 'feedback_wait_started');
  const reset = await http(api, 'POST', `${wf(first.workflowId, first.runId)}/reset`, { json: { stepName: 'add_one' }, ...as(operator) });
  expectStatus(reset, 200, 'reset');
  const second = { workflowId: first.workflowId, runId: reset.body.runId as string };
  assert.is((await eventOf(api, second, 'workflow_reset')).attributes.identity, 'operator.on-call', 'the reset mark names the key');
  assert.is((await eventOf(api, first, 'workflow_terminated')).attributes.identity, 'operator.on-call', 'so does the old run\'s end');
  assert.is((await statusOf(api, second)).startedBy, 'nightly-ci', 'a reset run keeps its starter');

  await eventOf(api, second, 'feedback_wait_started');
  expectStatus(await http(api, 'POST', '/workflow/feedback', { json: { workflowId: first.workflowId, payload: { go: 1 } }, ...as(operator) }), 200, 'feedback');
  await waitFor(api, second, 'completed');
  const reply = (await events(api, second)).filter((event) => event.type === 'signal_received');
  assert.is(reply.length, 1, JSON.stringify(reply));
  assert.is(reply[0].attributes.identity, 'operator.on-call', 'the reply names the key');

  const rerun = await http(api, 'POST', `${wf(second.workflowId, second.runId)}/rerun`, { json: {}, ...as(operator) });
  expectStatus(rerun, 200, 'rerun');
  const third = { workflowId: rerun.body.workflowId as string, runId: rerun.body.runId as string };
  assert.is((await statusOf(api, third)).startedBy, 'operator.on-call', 'a rerun is started by the key that asked for it');
  assert.is((await eventOf(api, third, 'workflow_started')).attributes.identity, 'operator.on-call');
  expectStatus(await http(api, 'POST', `${wf(third.workflowId, third.runId)}/terminate`, { json: {}, ...as(operator) }), 200);
});

test('stop and terminate record the key that made them', async ({ api }) => {
  const stopped = await startAs(api, starter, 'awaits_feedback', {});
  await eventOf(api, stopped, 'feedback_wait_started');
  expectStatus(await http(api, 'PATCH', `${wf(stopped.workflowId, stopped.runId)}/stop`, as(operator)), 200, 'stop');
  assert.is((await eventOf(api, stopped, 'workflow_cancel_requested')).attributes.identity, 'operator.on-call');

  const terminated = await startAs(api, starter, 'awaits_feedback', {});
  const response = await http(api, 'POST', `${wf(terminated.workflowId, terminated.runId)}/terminate`, { json: { reason: 'audit' }, ...as(operator) });
  expectStatus(response, 200, 'terminate');
  const end = await eventOf(api, terminated, 'workflow_terminated');
  assert.equal(end.attributes, { reason: 'audit', identity: 'operator.on-call' });
});

test('a bulk terminate records the key on every run it ends', async ({ api }) => {
  const runs = [await startAs(api, starter, 'sleeper', { ms: 3_600_000 }), await startAs(api, starter, 'sleeper', { ms: 3_600_000 })];
  // The run list may trail a start (Temporal's visibility): asked again until both runs are listed and ended.
  await eventually('the bulk terminate to reach both runs', async () => {
    if ((await Promise.all(runs.map((run) => statusOf(api, run)))).every((status) => status.status !== 'running')) return true;
    const bulk = await http(api, 'POST', '/workflow/runs/terminate', { json: { workflowName: 'sleeper', status: 'running', reason: 'bulk audit' }, ...as(operator) });
    expectStatus(bulk, 200, 'bulk terminate');
    return false;
  }, { intervalMs: 100 });
  for (const run of runs) assert.equal((await eventOf(api, run, 'workflow_terminated')).attributes, { reason: 'bulk audit', identity: 'operator.on-call' });
});

test.run();

/* Without keys nobody is named: no startedBy, no identity, on either engine (Temporal's own identity of the client is a process, not a key). */
const open = contractSuite('who did what: without keys');

open('a run started and changed without a key names no one', async ({ api }) => {
  const response = await http(api, 'POST', '/workflow', { json: { workflowName: 'step_then_waits', workflowId: uniqueId('who-nokey'), input: { n: 1 } } });
  expectStatus(response, 200);
  const run = { workflowId: response.body.workflowId as string, runId: response.body.runId as string };
  const status = await http(api, 'GET', `${wf(run.workflowId, run.runId)}/status`);
  assert.not.ok('startedBy' in status.body, JSON.stringify(status.body));
  await eventually('the run to wait', async () => {
    const page = await http(api, 'GET', `${wf(run.workflowId, run.runId)}/history?pageSize=200`);
    return page.body.events.some((event: any) => event.type === 'feedback_wait_started');
  }, { intervalMs: 50 });
  expectStatus(await http(api, 'POST', '/workflow/feedback', { json: { workflowId: run.workflowId, payload: { go: 1 } } }), 200);
  const history = await http(api, 'GET', `${wf(run.workflowId, run.runId)}/history?pageSize=200`);
  assert.ok(history.body.events.length > 3);
  for (const event of history.body.events) assert.not.ok('identity' in event.attributes, JSON.stringify(event));
  const filtered = await http(api, 'GET', '/workflow/runs?startedBy=nightly-ci');
  assert.not.ok(filtered.body.runs.some((item: any) => item.runId === run.runId));
});

open.run();
