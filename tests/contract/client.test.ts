import * as assert from 'uvu/assert';
import { Agent } from 'undici';
import { createFlowgateClient, FlowgateApiError, workflowRef, type FlowgateClient } from '../../adapters/client/index.js';
import { arithmetic, awaitsFeedback, echo, sleeper } from '../fixtures/workflows/basic.js';
import { contractSuite, ISO_UTC, listAllRuns, RESULT_LEGACY_KEYS, RESULT_V2_KEYS, keys, UUID, waitUntil } from '../support/contract.js';
import { uniqueId, waitForEvent } from '../support/http.js';
import type { TestApi } from '../support/engines.js';
import { eventually } from '../support/eventually.js';

/** Every endpoint through flowgate/client (docs/client.md), on the engine under test. */
const test = contractSuite('client: every endpoint');

function clientOf(baseUrl: string): FlowgateClient {
  return createFlowgateClient({ baseUrl });
}

/** Runs `body` with a client of the suite's server, closed afterwards. */
async function withClient(context: { api: { baseUrl: string } }, body: (client: FlowgateClient) => Promise<void>): Promise<void> {
  const client = clientOf(context.api.baseUrl);
  try {
    await body(client);
  } finally {
    await client.close();
  }
}

/** Waits until the run list (eventually consistent on Temporal) shows the run as running. */
async function listedAsRunning(api: TestApi, runId: string): Promise<void> {
  await eventually(`the run list to show ${runId} as running`, async () =>
    (await listAllRuns(api, { workflowName: 'sleeper', status: 'running' })).some((run) => run.runId === runId),
  );
}

async function rejection(promise: Promise<unknown>): Promise<FlowgateApiError> {
  try {
    await promise;
  } catch (error) {
    assert.instance(error, FlowgateApiError);
    return error as FlowgateApiError;
  }
  throw new assert.Assertion({ message: 'expected the call to fail', generated: false, operator: 'rejects', expects: 'a rejection', actual: 'a success' });
}

test('run(definition) completes with the typed output; run by name and by reference answer the same', (context) =>
  withClient(context, async (client) => {
    const result = await client.run(echo, { message: 'hi' });
    assert.equal(keys(result), RESULT_V2_KEYS);
    assert.is(result.status, 'completed');
    if (result.status === 'completed') assert.is(result.output.message, 'hi');
    assert.match(result.runId ?? '', UUID);
    const byName = await client.run('echo', { message: 'by name' });
    assert.equal(byName.output, { message: 'by name' });
    const byRef = await client.run(workflowRef<typeof echo>('echo'), { message: 'by ref' });
    assert.equal(byRef.output, { message: 'by ref' });
    const failed = await client.run('fails_in_workflow', {});
    assert.is(failed.status, 'failed');
    assert.is(failed.output, null);
    assert.is(failed.error?.name, 'RangeError');
  }));

test('start, status, input, result (with wait, and legacy), history, runs, trace-log', (context) =>
  withClient(context, async (client) => {
    const workflowId = uniqueId('client-read');
    const started = await client.start(echo, { message: 'read me' }, { workflowId });
    assert.equal(started, { workflowId, runId: started.runId, status: 'running' });
    const result = await client.result(workflowId, { wait: 20 });
    assert.is(result.status, 'completed');
    assert.equal(result.output, { message: 'read me' });
    const pinned = await client.result(workflowId, { runId: started.runId });
    assert.equal(pinned.runId, started.runId);
    const legacy = await client.result(workflowId, { runId: started.runId, v: 'legacy' });
    assert.equal(keys(legacy), RESULT_LEGACY_KEYS);
    assert.is(legacy.errorDetails, null);
    const status = await client.status(workflowId);
    assert.is(status.status, 'completed');
    assert.is(status.workflowName, 'echo');
    assert.match(status.startedAt, ISO_UTC);
    assert.equal(await client.status(workflowId, { runId: started.runId }), status);
    assert.equal(await client.input(workflowId), { workflowId, runId: started.runId, input: { message: 'read me' } });
    assert.equal((await client.input(workflowId, { runId: started.runId })).input, { message: 'read me' });
    const page = await client.history(workflowId, { pageSize: 1 });
    assert.is(page.events.length, 1);
    assert.is(page.events[0]?.type, 'workflow_started');
    assert.type(page.nextPageToken, 'string');
    const paged = [...page.events];
    for (let token = page.nextPageToken; token !== null; ) {
      const next = await client.history(workflowId, { pageSize: 1, pageToken: token });
      paged.push(...next.events);
      token = next.nextPageToken;
    }
    assert.is(paged.at(-1)?.type, 'workflow_completed');
    assert.equal((await client.history(workflowId, { runId: started.runId, pageSize: 200 })).events, paged);
    // Runs of the shared Temporal server's earlier suites are listed too, and its list lags: the shape, and paging.
    const runs = await client.listRuns({ workflowName: 'echo', limit: 1 });
    assert.ok(runs.runs.length <= 1);
    assert.ok(runs.runs.every((run) => run.workflowName === 'echo'));
    if (runs.nextPageToken !== null) {
      const more = await client.listRuns({ workflowName: 'echo', limit: 1, pageToken: runs.nextPageToken });
      assert.is.not(more.runs[0]?.runId, runs.runs[0]?.runId);
    }
    // On Temporal the run's worker may still be writing the file when the long-poll answers (then: its path, no data).
    const trace = await eventually('the trace file with its data', async () => {
      const log = await client.traceLog(workflowId, started.runId);
      return log.data === undefined ? undefined : log;
    }, { intervalMs: 100 });
    assert.is(trace.runId, started.runId);
    assert.is(trace.source, 'local');
    assert.is(trace.data?.workflowName, 'echo', JSON.stringify(trace));
  }));

test('listWorkflows carries each workflow\'s input and output JSON Schema; ready, health and the OpenAPI document', (context) =>
  withClient(context, async (client) => {
    const list = await client.listWorkflows();
    const entry = list.workflows.find((workflow) => workflow.name === 'echo');
    assert.ok(entry);
    assert.is((entry.inputSchema as { type?: unknown }).type, 'object');
    assert.is((entry.outputSchema as { type?: unknown }).type, 'object');
    const other = await client.listWorkflows({ catalog: 'other' });
    assert.equal(other.workflows.map((workflow) => workflow.name), ['other_only']);
    assert.equal(await client.ready(), { status: 'ready', engine: context.api.engine });
    assert.equal(await client.health(), { status: 'ok' });
    const document = await client.openApi();
    assert.is(document.openapi, '3.1.0');
  }));

test('sendFeedback resumes a waiting run', (context) =>
  withClient(context, async (client) => {
    const { workflowId, runId } = await client.start(awaitsFeedback, {});
    await waitForEvent(context.api, workflowId, 'workflow_started');
    assert.equal(await client.sendFeedback(workflowId, { approved: true }), { workflowId, runId });
    const result = await client.result(workflowId, { runId, wait: 20 });
    assert.equal(result.output, { reply: { approved: true } });
  }));

test('stop (pinned and latest), terminate, reset, bulk cancel and terminate', (context) =>
  withClient(context, async (client) => {
    const ids = ({ workflowId, runId }: { workflowId: string; runId: string }) => ({ workflowId, runId });
    const first = ids(await client.start(sleeper, { ms: 3_600_000 }));
    assert.equal(await client.stop(first.workflowId, { runId: first.runId }), first);
    await waitUntil(context.api, first.workflowId, 'cancelled', first.runId);
    const second = ids(await client.start(sleeper, { ms: 3_600_000 }));
    assert.equal(await client.stop(second.workflowId), second, 'the deprecated latest-run form');
    const third = ids(await client.start(sleeper, { ms: 3_600_000 }));
    assert.equal(await client.terminate(third.workflowId, third.runId, { reason: 'enough' }), { terminated: true, ...third });
    const done = await client.run(arithmetic, { n: 1 });
    assert.equal(done.output, { result: 4 });
    const reset = await client.reset(done.workflowId, { stepName: 'add_one', reason: 'again' }, { runId: done.runId! });
    assert.is(reset.workflowId, done.workflowId);
    assert.is.not(reset.runId, done.runId);
    assert.equal((await client.result(reset.workflowId, { runId: reset.runId, wait: 20 })).output, { result: 4 });
    // Dry runs only: on a shared Temporal server a real bulk action would reach other suites' runs. bulk.test.ts
    // covers what the actions do; here, that the client sends both and reads their answers.
    const open = await client.start(sleeper, { ms: 3_600_000 });
    await listedAsRunning(context.api, open.runId);
    for (const [action, bulk] of [['cancel', client.cancelRuns({ workflowName: 'sleeper', status: 'running', dryRun: true })], ['terminate', client.terminateRuns({ workflowName: 'sleeper', status: 'running', dryRun: true, reason: 'counted only' })]] as const) {
      const answer = await bulk;
      assert.is(answer.action, action);
      assert.is(answer.dryRun, true);
      assert.ok(answer.matched >= 1, JSON.stringify(answer));
      assert.is(answer.succeeded, 0);
    }
    assert.is((await client.status(open.workflowId)).status, 'running', 'a dry run acts on nothing');
    await client.terminate(open.workflowId, open.runId);
  }));

test('rerun starts the same workflow with the run\'s input once per key: a retried rerun joins the first', (context) =>
  withClient(context, async (client) => {
    const original = await client.run(echo, { message: 'again' });
    const idempotencyKey = `client-rerun-${uniqueId('k')}`;
    const rerun = await client.rerun(original.workflowId, original.runId!, { idempotencyKey });
    assert.equal(rerun.rerunOf, { workflowId: original.workflowId, runId: original.runId });
    const retried = await client.rerun(original.workflowId, original.runId!, { idempotencyKey });
    assert.equal(retried, rerun, 'the same key answers the same new run');
    const named = await client.rerun(original.workflowId, original.runId!, { newWorkflowId: uniqueId('client-rerun') });
    assert.is.not(named.runId, rerun.runId, 'another call (its own generated key) is another rerun');
    const result = await client.result(rerun.workflowId, { runId: rerun.runId, wait: 30 });
    assert.equal(result.output, { message: 'again' });
    // The bulk form, as a dry run only: a real one would rerun other tests' runs too.
    const dry = await client.rerunRuns({ workflowName: 'echo', dryRun: true });
    assert.is(dry.action, 'rerun');
    assert.is(dry.dryRun, true);
    assert.equal(dry.started, []);
  }));

test('errors: one class with the server\'s name, status, workflowId, issues and request id', (context) =>
  withClient(context, async (client) => {
    const missing = await rejection(client.start('no_such_workflow', {}, { requestId: 'client-test-1' }));
    assert.is(missing.error, 'WorkflowNotFoundError');
    assert.is(missing.status, 404);
    assert.is(missing.requestId, 'client-test-1');
    assert.match(missing.message, /^WorkflowNotFoundError: /);

    // @ts-expect-error the definition's input schema wants `message`; the server refuses it too.
    const invalid = await rejection(client.start(echo, { text: 'wrong field' }));
    assert.is(invalid.error, 'ValidationError');
    assert.is(invalid.status, 400);
    assert.ok(invalid.issues.length > 0);
    assert.type(invalid.issues[0]?.message, 'string');
    assert.ok(invalid.requestId);

    const workflowId = uniqueId('client-missing');
    const unknownRun = await rejection(client.status(workflowId));
    assert.is(unknownRun.error, 'WorkflowNotFoundError');
    assert.is(unknownRun.workflowId, workflowId);

    const open = await client.start(sleeper, { ms: 3_600_000 });
    const notDone = await rejection(client.result(open.workflowId));
    assert.is(notDone.error, 'WorkflowNotCompletedError');
    assert.is(notDone.status, 424);
    await client.terminate(open.workflowId, open.runId);
    const closed = await rejection(client.terminate(open.workflowId, open.runId));
    assert.is(closed.error, 'WorkflowClosedError');
    assert.is(closed.status, 409);
  }));

test('a workflow id `.` or `..` (valid ids, dot segments to URL handling) reaches its run through every path of the client', (context) =>
  withClient(context, async (client) => {
    for (const workflowId of ['.', '..']) {
      // The ids cannot be made unique: a run of another suite on the shared Temporal server may hold one a moment.
      const started = await eventually(`a start of workflow id ${workflowId}`, async () => {
        try {
          return await client.start(echo, { message: workflowId }, { workflowId });
        } catch (error) {
          if (error instanceof FlowgateApiError && error.error === 'WorkflowAlreadyStartedError') return undefined;
          throw error;
        }
      });
      assert.is(started.workflowId, workflowId);
      const result = await client.result(workflowId, { runId: started.runId, wait: 20 });
      assert.equal([result.workflowId, result.output], [workflowId, { message: workflowId }]);
      assert.is((await client.status(workflowId, { runId: started.runId })).workflowId, workflowId);
      assert.equal((await client.input(workflowId, { runId: started.runId })).input, { message: workflowId });
      const events: string[] = [];
      for await (const event of client.follow(workflowId, { runId: started.runId })) events.push(event.event);
      assert.equal([events[0], events.at(-1)], ['workflow', 'done']);
    }
  }));

test('a dispatcher of the caller\'s is used and left open by close()', async ({ api }) => {
  const dispatcher = new Agent({ connections: 1 });
  const connects: string[] = [];
  dispatcher.on('connect', (origin) => connects.push(String(origin)));
  try {
    const client = createFlowgateClient({ baseUrl: api.baseUrl, dispatcher });
    assert.equal(await client.health(), { status: 'ok' });
    await client.close();
    assert.equal(connects.map((origin) => new URL(origin).origin), [new URL(api.baseUrl).origin]);
    const again = createFlowgateClient({ baseUrl: api.baseUrl, dispatcher });
    assert.equal(await again.health(), { status: 'ok' }, 'still usable after the first client closed');
    await again.close();
  } finally {
    await dispatcher.close();
  }
});

test.run();
