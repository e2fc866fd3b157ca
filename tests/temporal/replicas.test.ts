// More than one API process (docs/operations.md, Replicas): two `flowgate serve` processes and two `flowgate worker`
// processes of one catalog on one Temporal server, requests spread over both APIs. Keyed feedback, reset and terminate
// are answered once across both (docs/idempotency.md), page tokens and Last-Event-ID from one API work on the other,
// and an API SIGKILLed under 200 starts in flight loses no start it answered 2xx. The catalog is this file's own (a
// random name), so the shared dev server's other suites never run its workflows, nor it theirs.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, request } from 'undici';
import { call, uniqueId, waitForStatus, type TestResponse } from '../support/http.js';
import { openEventStream, type EventStream, type SseEvent } from '../support/contract.js';
import { startApiProcess, startWorkerProcess, waitForOnlineWorkers, type NodeProcess } from '../faults/processes.js';
import { eventually } from '../support/eventually.js';

const CATALOG = uniqueId('replicas');
const STARTS = 200;
/** SIGKILL API A once this many of the 200 starts have answered: most of A's are still in flight. */
const KILL_AFTER_ANSWERS = 20;

type Api = NodeProcess & { url: string };
interface Context {
  /** uvu swallows an error thrown by a before hook (the suite then reports no failure): kept for the tests. */
  setupError?: unknown;
  dir: string;
  workers: NodeProcess[];
  apis: Api[];
  agent?: Agent;
}

const replicas = suite<Context>('Temporal: two API processes and two workers of one catalog');

replicas.before(async (context) => {
  context.dir = await mkdtemp(join(tmpdir(), 'fg-replicas-'));
  context.workers = [];
  context.apis = [];
  try {
    const address = process.env.TEMPORAL_ADDRESS;
    if (!address) throw new Error('needs TEMPORAL_ADDRESS (npm test starts a dev server for this suite)');
    const temporal = { address, namespace: process.env.TEMPORAL_NAMESPACE ?? 'default' };
    const env = { TEMPORAL_ADDRESS: temporal.address, TEMPORAL_NAMESPACE: temporal.namespace, TRACE_DIR: join(context.dir, 'traces') };
    context.workers.push(startWorkerProcess({ ...env, WORKER_CATALOG: CATALOG, LOG_LEVEL: 'warn' }));
    context.workers.push(startWorkerProcess({ ...env, WORKER_CATALOG: CATALOG, LOG_LEVEL: 'warn' }));
    // Replicas share what makes their answers interchangeable: the Temporal namespace and the page-token secret.
    const apiEnv = { ...env, ENGINE: 'temporal', DEFAULT_CATALOG: CATALOG, PAGE_TOKEN_SECRET: `replicas-secret-${CATALOG}`, SHUTDOWN_GRACE_MS: '2000' };
    const apis = await Promise.allSettled([startApiProcess(apiEnv), startApiProcess(apiEnv)]);
    for (const api of apis) if (api.status === 'fulfilled') context.apis.push(api.value);
    const failed = apis.find((api): api is PromiseRejectedResult => api.status === 'rejected');
    if (failed) throw failed.reason;
    await waitForOnlineWorkers(temporal, CATALOG, 2, context.workers);
    context.agent = new Agent({ connections: STARTS + 20 });
  } catch (error) {
    context.setupError = error;
  }
});

replicas.after(async (context) => {
  await Promise.all([...context.apis, ...context.workers].map((child) => child.stop('SIGTERM', 5_000)));
  await context.agent?.close();
  await rm(context.dir, { recursive: true, force: true });
});

/** Both API processes, as clients of the test helpers see them. */
function both(context: Context): [{ baseUrl: string }, { baseUrl: string }] {
  if (context.setupError) throw context.setupError;
  const [a, b] = context.apis;
  return [{ baseUrl: a!.url }, { baseUrl: b!.url }];
}

const wf = (workflowId: string, runId?: string): string => `/workflow/${encodeURIComponent(workflowId)}${runId ? `/runs/${runId}` : ''}`;
const withKey = (key: string, json: unknown) => ({ json, headers: { 'idempotency-key': key } });

function expectStatus(response: TestResponse, status: number): void {
  assert.is(response.status, status, `${response.status} ${response.text}`);
}

function expectReused(response: TestResponse): void {
  expectStatus(response, 409);
  assert.is(response.body.error, 'IdempotencyKeyReusedError');
}

/** The same answer: status, body and Idempotency-Expires. */
function expectSameAnswer(retry: TestResponse, first: TestResponse, what: string): void {
  expectStatus(retry, first.status);
  assert.equal(retry.body, first.body, `${what}: the same body`);
  assert.ok(first.headers['idempotency-expires'], `${what}: a keyed answer says when it expires`);
  assert.is(retry.headers['idempotency-expires'], first.headers['idempotency-expires'], `${what}: the same Idempotency-Expires`);
}

async function historyOf(api: { baseUrl: string }, workflowId: string, runId: string): Promise<any[]> {
  const response = await call(api, 'GET', `${wf(workflowId, runId)}/history?pageSize=200`);
  expectStatus(response, 200);
  assert.is(response.body.nextPageToken, null, 'one page holds the whole history');
  return response.body.events;
}

async function startApproval(api: { baseUrl: string }, prefix: string): Promise<{ workflowId: string; runId: string }> {
  const started = await call(api, 'POST', '/workflow', { json: { workflowName: 'approval', workflowId: uniqueId(prefix), input: { request: prefix } } });
  expectStatus(started, 200);
  return { workflowId: started.body.workflowId, runId: started.body.runId };
}

replicas('keyed feedback is delivered once across both APIs: the same answer and expiry from either, 409 for another payload', async (context) => {
  const [a, b] = both(context);
  const { workflowId, runId } = await startApproval(a, 'replicas-feedback');
  const key = uniqueId('replicas-feedback-key');
  const body = { workflowId, payload: { approved: true, comment: 'once' } };
  const first = await call(a, 'POST', '/workflow/feedback', withKey(key, body));
  expectStatus(first, 200);
  assert.equal(first.body, { workflowId, runId });
  expectSameAnswer(await call(b, 'POST', '/workflow/feedback', withKey(key, body)), first, 'retried on B while the run may be open');
  expectReused(await call(b, 'POST', '/workflow/feedback', withKey(key, { workflowId, payload: { approved: false } })));
  expectReused(await call(a, 'POST', '/workflow/feedback', withKey(key, { workflowId, payload: { approved: false } })));

  await waitForStatus(b, `${wf(workflowId)}/status`, (status) => status === 'completed', 30_000);
  expectSameAnswer(await call(b, 'POST', '/workflow/feedback', withKey(key, body)), first, 'retried on B after the reply closed the run');
  expectSameAnswer(await call(a, 'POST', '/workflow/feedback', withKey(key, body)), first, 'retried on A');
  const events = await historyOf(b, workflowId, runId);
  assert.is(events.filter((event) => event.type === 'signal_received').length, 1, 'one signal delivered');
  const result = await call(a, 'GET', `${wf(workflowId, runId)}/result`);
  assert.equal(result.body.output, { request: 'replicas-feedback', approved: true, comment: 'once' });

  // Duplicates sent to both APIs at once: one signal, one answer.
  const racing = await startApproval(b, 'replicas-feedback-race');
  const raceKey = uniqueId('replicas-feedback-race-key');
  const raceBody = { workflowId: racing.workflowId, payload: { approved: false } };
  const answers = await Promise.all([a, b, a, b].map((api) => call(api, 'POST', '/workflow/feedback', withKey(raceKey, raceBody))));
  for (const answer of answers) {
    expectStatus(answer, 200);
    assert.equal(answer.body, racing);
    assert.is(answer.headers['idempotency-expires'], answers[0]!.headers['idempotency-expires'], 'one expiry: the one signal delivered carries it');
  }
  await waitForStatus(a, `${wf(racing.workflowId)}/status`, (status) => status === 'completed', 30_000);
  const raceEvents = await historyOf(a, racing.workflowId, racing.runId);
  assert.is(raceEvents.filter((event) => event.type === 'signal_received').length, 1, 'one signal delivered for four duplicates');
});

replicas('keyed terminate is done once across both APIs: the same answer and expiry from either, 409 for another reason', async (context) => {
  const [a, b] = both(context);
  const { workflowId, runId } = await startApproval(a, 'replicas-terminate');
  const key = uniqueId('replicas-terminate-key');
  const path = `${wf(workflowId, runId)}/terminate`;
  const first = await call(b, 'POST', path, withKey(key, { reason: 'replicas once' }));
  expectStatus(first, 200);
  assert.equal(first.body, { terminated: true, workflowId, runId });
  expectSameAnswer(await call(a, 'POST', path, withKey(key, { reason: 'replicas once' })), first, 'retried on A');
  expectSameAnswer(await call(b, 'POST', path, withKey(key, { reason: 'replicas once' })), first, 'retried on B');
  expectReused(await call(a, 'POST', path, withKey(key, { reason: 'another reason' })));
  const unkeyed = await call(a, 'POST', path, { json: { reason: 'replicas once' } });
  expectStatus(unkeyed, 409);
  assert.is(unkeyed.body.error, 'WorkflowClosedError', 'without the key it is a request of its own, on a closed run');
  const events = await historyOf(a, workflowId, runId);
  const terminated = events.filter((event) => event.type === 'workflow_terminated');
  assert.is(terminated.length, 1);
  assert.is(terminated[0].attributes.reason, 'replicas once');
});

replicas('keyed reset makes one new run across both APIs: the same run and expiry from either, 409 for another step', async (context) => {
  const [a, b] = both(context);
  for (const pinned of [true, false]) {
    const workflowId = uniqueId('replicas-reset');
    const old = await call(a, 'POST', '/workflow/run', { json: { workflowName: 'summarise', workflowId, input: { text: 'one two three four', maxWords: 2 } } });
    expectStatus(old, 200);
    assert.is(old.body.status, 'completed');
    const path = pinned ? `${wf(workflowId, old.body.runId)}/reset` : `${wf(workflowId)}/reset`;
    const key = uniqueId('replicas-reset-key');
    const first = await call(a, 'POST', path, withKey(key, { stepName: 'split_words', reason: 'replicas' }));
    expectStatus(first, 200);
    assert.is.not(first.body.runId, old.body.runId);
    expectSameAnswer(await call(b, 'POST', path, withKey(key, { stepName: 'split_words', reason: 'replicas' })), first, `retried on B (${pinned ? 'pinned' : 'latest run'})`);
    expectReused(await call(b, 'POST', path, withKey(key, { stepName: 'summarise_words', reason: 'replicas' })));
    expectReused(await call(b, 'POST', path, withKey(key, { stepName: 'split_words', reason: 'another reason' })));
    expectSameAnswer(await call(a, 'POST', path, withKey(key, { stepName: 'split_words', reason: 'replicas' })), first, 'retried on A');

    // One reset: the run it made is still the latest, and its history tells of one reset, with the client's reason.
    const latest = await waitForStatus(b, `${wf(workflowId)}/status`, (status) => status === 'completed', 30_000);
    assert.is(latest.runId, first.body.runId, 'the reset run is the latest: nothing reset it again');
    const resets = (await historyOf(b, workflowId, first.body.runId)).filter((event) => event.type === 'workflow_reset');
    assert.equal(
      resets.map((event) => event.attributes),
      [{ reason: 'replicas', stepName: 'split_words', resetFromRunId: old.body.runId }],
    );
  }
});

replicas('a history page token and a run list page token from one API work on the other', async (context) => {
  const [a, b] = both(context);
  const workflowId = uniqueId('replicas-pages');
  const run = await call(a, 'POST', '/workflow/run', { json: { workflowName: 'summarise', workflowId, input: { text: 'a b c d e f', maxWords: 3 } } });
  expectStatus(run, 200);
  const whole = await historyOf(b, workflowId, run.body.runId);
  assert.ok(whole.length > 6, `enough events for three pages (${whole.length})`);
  const paged: any[] = [];
  let pageToken: string | null = null;
  for (let page = 0; page === 0 || pageToken; page += 1) {
    const api = page % 2 === 0 ? a : b;
    const query: string = pageToken ? `pageSize=3&pageToken=${encodeURIComponent(pageToken)}` : 'pageSize=3';
    const response: TestResponse = await call(api, 'GET', `${wf(workflowId, run.body.runId)}/history?${query}`);
    expectStatus(response, 200);
    paged.push(...response.body.events);
    pageToken = response.body.nextPageToken;
  }
  assert.equal(paged, whole, 'pages read alternately from A and B are the whole history, once');

  // The run list of this file's catalog: its runs only. Visibility lags behind starts and closes, and the order puts
  // open runs first: wait until it lists the five runs and every run of the catalog as closed, so nothing moves.
  const ids = new Set<string>();
  for (let index = 0; index < 5; index += 1) {
    const started = await call(index % 2 === 0 ? a : b, 'POST', '/workflow', { json: { workflowName: 'nap', workflowId: uniqueId('replicas-list'), input: { ms: 0 } } });
    expectStatus(started, 200);
    ids.add(started.body.runId);
  }
  const listPath = `/workflow/runs?catalog=${encodeURIComponent(CATALOG)}`;
  const all: any[] = await eventually(
    'the run list to show the five runs, all closed',
    async () => {
      const response = await call(b, 'GET', `${listPath}&limit=1000`);
      expectStatus(response, 200);
      const runs: any[] = response.body.runs;
      const settled = runs.every((listed) => listed.status !== 'running');
      return settled && [...ids].every((runId) => runs.some((listed) => listed.runId === runId)) && runs;
    },
    { timeoutMs: 60_000 },
  );
  const listed: string[] = [];
  let listToken: string | null = null;
  for (let page = 0; page === 0 || listToken; page += 1) {
    const api = page % 2 === 0 ? a : b;
    const response: TestResponse = await call(api, 'GET', `${listPath}&limit=2${listToken ? `&pageToken=${encodeURIComponent(listToken)}` : ''}`);
    expectStatus(response, 200);
    listed.push(...response.body.runs.map((listedRun: { runId: string }) => listedRun.runId));
    listToken = response.body.nextPageToken;
  }
  assert.equal(listed, all.map((listedRun) => listedRun.runId), 'pages read alternately from A and B list every run once, in order');
});

/** Reads events until `until` holds for the last one read. */
async function readUntil(stream: EventStream, until: (event: SseEvent) => boolean): Promise<SseEvent[]> {
  const events: SseEvent[] = [];
  for (;;) {
    const event = await stream.next(30_000);
    assert.ok(event, `the stream ended early after ${JSON.stringify(events.map((read) => read.event))}`);
    events.push(event!);
    if (until(event!)) return events;
  }
}

replicas('an SSE history stream started on A resumes on B with Last-Event-ID: no event repeated, none skipped', async (context) => {
  const [a, b] = both(context);

  // A closed run: the first events from A, the rest from B.
  const workflowId = uniqueId('replicas-sse');
  const run = await call(a, 'POST', '/workflow/run', { json: { workflowName: 'summarise', workflowId, input: { text: 'x y z', maxWords: 1 } } });
  expectStatus(run, 200);
  const whole = await historyOf(a, workflowId, run.body.runId);
  const path = `${wf(workflowId, run.body.runId)}/history`;
  const onA = await openEventStream(a, path);
  const firstPart = (await readUntil(onA, (event) => event.event === 'history' && event.data.eventId >= 4)).filter((event) => event.event === 'history');
  onA.close();
  const onB = await openEventStream(b, path, { 'last-event-id': firstPart.at(-1)!.id! });
  assert.is(onB.status, 200);
  const rest = await onB.rest(30_000);
  assert.equal(rest.at(-1), { event: 'done', data: { status: 'completed' } });
  const secondPart = rest.filter((event) => event.event === 'history');
  assert.equal([...firstPart, ...secondPart].map((event) => event.data), whole, 'A then B: every event once, in order');

  // An open run: followed live on A, resumed on B after the run went on.
  const open = await startApproval(a, 'replicas-sse-live');
  const live = await openEventStream(a, `${wf(open.workflowId, open.runId)}/history`);
  const before = (await readUntil(live, (event) => event.event === 'history' && event.data.type === 'workflow_started')).filter((event) => event.event === 'history');
  live.close();
  expectStatus(await call(b, 'POST', '/workflow/feedback', { json: { workflowId: open.workflowId, payload: { approved: true } } }), 200);
  const resumed = await openEventStream(b, `${wf(open.workflowId, open.runId)}/history`, { 'last-event-id': before.at(-1)!.id! });
  const after = await resumed.rest(30_000);
  assert.equal(after.at(-1), { event: 'done', data: { status: 'completed' } });
  const liveWhole = await historyOf(b, open.workflowId, open.runId);
  assert.equal([...before, ...after.filter((event) => event.event === 'history')].map((event) => event.data), liveWhole, 'A then B: every event once, in order');
  assert.ok(after.some((event) => event.data?.type === 'signal_received'), 'B sent what happened after A stopped');
});

interface StartAnswer {
  index: number;
  api: 'A' | 'B';
  workflowId: string;
  status?: number;
  body?: any;
  error?: string;
}

// Last: it kills API A.
replicas('200 starts over both APIs, API A SIGKILLed mid-way: every start answered 2xx is a real run, none lost', async (context) => {
  const [a, b] = both(context);
  const agent = context.agent!;
  const [apiA, apiB] = context.apis as [Api, Api];
  let answered = 0;
  let killed: Promise<unknown> | undefined;
  const starts = Array.from({ length: STARTS }, (_, index): Promise<StartAnswer> => {
    const api = index % 2 === 0 ? 'A' : 'B';
    const workflowId = uniqueId(`replicas-kill-${index}`);
    return request(`${(api === 'A' ? a : b).baseUrl}/workflow`, {
      method: 'POST',
      dispatcher: agent,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ workflowName: 'nap', workflowId, input: { ms: 0 } }),
    })
      .then(
        async (response): Promise<StartAnswer> => ({ index, api, workflowId, status: response.statusCode, body: await response.body.json() }),
        (error: unknown): StartAnswer => ({ index, api, workflowId, error: String(error) }),
      )
      .finally(() => {
        answered += 1;
        if (answered === KILL_AFTER_ANSWERS) killed = apiA.stop('SIGKILL');
      });
  });
  const answers = await Promise.all(starts);
  const exit = (await killed) as { signal: string | null } | undefined;
  assert.is(exit?.signal, 'SIGKILL', 'API A was killed while starts were in flight');
  assert.ok(apiB.isRunning(), `API B kept running:\n${apiB.stderr()}`);

  const accepted = answers.filter((answer) => answer.status !== undefined && answer.status >= 200 && answer.status < 300);
  const lostOnA = answers.filter((answer) => answer.error !== undefined);
  // B answered every start sent to it; A answered some before it died, and the connections of the rest broke.
  assert.equal(answers.filter((answer) => answer.api === 'B' && !accepted.includes(answer)).map((answer) => `${answer.workflowId}: ${answer.status} ${answer.error ?? JSON.stringify(answer.body)}`), []);
  assert.equal(answers.filter((answer) => answer.api === 'A' && !accepted.includes(answer) && answer.error === undefined).map((answer) => `${answer.status} ${JSON.stringify(answer.body)}`), [], 'A answered nothing but 2xx');
  assert.ok(lostOnA.length > 0, 'the kill hit starts in flight on A');
  const acceptedByA = accepted.filter((answer) => answer.api === 'A').length;

  // Every start answered 2xx, by either API, is a real run on Temporal: described through B as the same run.
  for (const answer of accepted) {
    assert.is(answer.body.workflowId, answer.workflowId);
    const status = await call(b, 'GET', `${wf(answer.workflowId, answer.body.runId)}/status`);
    assert.is(status.status, 200, `${answer.api} answered ${answer.workflowId} (run ${answer.body.runId}) 2xx, but B finds ${status.status} ${status.text}`);
    assert.is(status.body.runId, answer.body.runId);
    const latest = await call(b, 'GET', `${wf(answer.workflowId)}/status`);
    assert.is(latest.body.runId, answer.body.runId, `${answer.workflowId} has one run, the one answered`);
  }
  // A start whose connection broke may still have reached Temporal (only its answer was lost): counted, not a failure.
  let startedAnyway = 0;
  for (const answer of lostOnA) if ((await call(b, 'GET', `${wf(answer.workflowId)}/status`)).status === 200) startedAnyway += 1;
  process.stdout.write(
    `\n  ${accepted.length} starts answered 2xx (${acceptedByA} by A, ${accepted.length - acceptedByA} by B), ${lostOnA.length} lost with A (${startedAnyway} of them started all the same)\n`,
  );
  // The workers run what was accepted: every accepted run completes.
  for (const answer of accepted) await waitForStatus(b, `${wf(answer.workflowId, answer.body.runId)}/status`, (status) => status === 'completed', 60_000);
});

replicas.run();
