import * as assert from 'uvu/assert';
import { EventSource, type ErrorEvent } from 'eventsource';
import { uniqueId } from '../support/http.js';
import {
  contractSuite,
  enc,
  expectError,
  expectStatus,
  historyEvents,
  http,
  ISO_UTC,
  keys,
  openEventStream,
  runAndWait,
  start,
  STATUS_VIEW_KEYS,
  wf,
  type SseEvent,
} from '../support/contract.js';
import { eventually } from '../support/eventually.js';

/** GET /workflow/{id}/history and /workflow/{id}/runs/{rid}/history: JSON pages and server-sent events. */
const test = contractSuite('history');

const EVENT_KEYS = ['attributes', 'eventId', 'time', 'type'];
/** docs/api.md, History: the engine-neutral event types. */
const EVENT_TYPES = [
  'workflow_started', 'step_scheduled', 'step_started', 'step_completed', 'step_failed', 'timer_started', 'timer_fired',
  'feedback_wait_started', 'signal_received', 'child_started', 'child_completed', 'child_failed', 'workflow_completed', 'workflow_failed',
  'workflow_cancel_requested', 'workflow_cancelled', 'workflow_terminated', 'workflow_timed_out',
  'workflow_continued_as_new', 'workflow_reset',
];

function checkEvent(event: Record<string, unknown>): void {
  const expected = 'stepName' in event ? [...EVENT_KEYS, 'stepName'].sort() : EVENT_KEYS;
  assert.equal(keys(event), expected, `event keys: ${JSON.stringify(event)}`);
  assert.ok(Number.isInteger(event.eventId) && (event.eventId as number) > 0);
  assert.ok(EVENT_TYPES.includes(event.type as string), `engine-neutral type: ${String(event.type)}`);
  assert.match(event.time as string, ISO_UTC);
  assert.type(event.attributes, 'object');
}

test('JSON page: {workflow, events, nextPageToken}; engine-neutral events with increasing ids', async ({ api }) => {
  const run = await runAndWait(api, { workflowName: 'arithmetic', workflowId: uniqueId('h-json'), input: { n: 1 } });
  for (const path of [`${wf(run.workflowId)}/history`, `${wf(run.workflowId, run.runId)}/history`]) {
    const response = await http(api, 'GET', path);
    expectStatus(response, 200);
    assert.equal(keys(response.body), ['events', 'nextPageToken', 'workflow']);
    assert.equal(keys(response.body.workflow), STATUS_VIEW_KEYS);
    assert.is(response.body.workflow.runId, run.runId);
    assert.is(response.body.workflow.status, 'completed');
    assert.is(response.body.nextPageToken, null, 'a short history fits the default page');
    const events = response.body.events;
    events.forEach(checkEvent);
    assert.equal(events.map((event: { eventId: number }) => event.eventId), events.map((_: unknown, index: number) => index + 1));
    assert.is(events[0].type, 'workflow_started');
    assert.is(events.at(-1).type, 'workflow_completed');
    const completedSteps = events.filter((event: { type: string }) => event.type === 'step_completed').map((event: { stepName?: string }) => event.stepName);
    assert.equal(completedSteps, ['add_one', 'double']);
  }
});

test('JSON paging with pageSize: the pages concatenate to the whole history', async ({ api }) => {
  const run = await runAndWait(api, { workflowName: 'arithmetic', workflowId: uniqueId('h-pages'), input: { n: 2 } });
  const all = await historyEvents(api, run.workflowId, run.runId);
  assert.ok(all.length > 4, 'enough events for several pages');
  const seen: any[] = [];
  let pageToken: string | null = null;
  do {
    const path: string = `${wf(run.workflowId)}/history?pageSize=2${pageToken ? `&pageToken=${enc(pageToken)}` : ''}`;
    const page: any = await http(api, 'GET', path);
    expectStatus(page, 200);
    assert.ok(page.body.events.length <= 2 && page.body.events.length > 0);
    seen.push(...page.body.events);
    pageToken = page.body.nextPageToken;
    assert.ok(seen.length <= all.length, 'paging ends');
  } while (pageToken);
  assert.equal(seen, all);
});

test('pageSize 1 and 200 accepted; 0, 201 and non-numbers 400; a forged pageToken 400', async ({ api }) => {
  const run = await runAndWait(api, { workflowName: 'echo', workflowId: uniqueId('h-bounds'), input: { message: 'x' } });
  const one = await http(api, 'GET', `${wf(run.workflowId)}/history?pageSize=1`);
  expectStatus(one, 200);
  assert.is(one.body.events.length, 1);
  assert.type(one.body.nextPageToken, 'string');
  expectStatus(await http(api, 'GET', `${wf(run.workflowId)}/history?pageSize=200`), 200);
  for (const pageSize of ['0', '201', 'many', '-5', '1.5']) {
    const response = await http(api, 'GET', `${wf(run.workflowId)}/history?pageSize=${pageSize}`);
    expectError(response, 400, 'ValidationError', { maybeWorkflowId: run.workflowId });
  }
  expectError(await http(api, 'GET', `${wf(run.workflowId)}/history?pageToken=not-a-token`), 400, 'ValidationError', {
    maybeWorkflowId: run.workflowId,
  });
});

test('history of an unknown id or run is 404', async ({ api }) => {
  const missing = uniqueId('h-missing');
  expectError(await http(api, 'GET', `${wf(missing)}/history`), 404, 'WorkflowNotFoundError', { maybeWorkflowId: missing });
  const stream = await openEventStream(api, `${wf(missing)}/history`);
  assert.is(stream.status, 404, 'an unknown run is a plain 404, not a stream');
  stream.close();
});

function checkStreamFraming(events: SseEvent[], jsonEvents: any[], status: string): void {
  assert.is(events[0]?.event, 'workflow', 'the first event is the workflow metadata');
  assert.equal(keys(events[0]!.data), STATUS_VIEW_KEYS);
  const history = events.slice(1, -1);
  assert.ok(history.every((event) => event.event === 'history'), `only history events in between: ${events.map((e) => e.event)}`);
  for (const event of history) {
    assert.is(event.id, String(event.data.eventId), 'id: is the event id');
    checkEvent(event.data);
  }
  assert.equal(history.map((event) => event.data), jsonEvents, 'the stream carries the same events as the JSON form');
  assert.equal(events.at(-1), { event: 'done', data: { status } });
}

test('SSE of a closed run: workflow, every history event with id:, done {status}, then the response ends', async ({ api }) => {
  const run = await runAndWait(api, { workflowName: 'arithmetic', workflowId: uniqueId('h-sse'), input: { n: 5 } });
  const jsonEvents = await historyEvents(api, run.workflowId, run.runId);
  for (const path of [`${wf(run.workflowId)}/history`, `${wf(run.workflowId, run.runId)}/history`]) {
    const stream = await openEventStream(api, path);
    assert.is(stream.status, 200);
    assert.match(stream.headers['content-type'] ?? '', /^text\/event-stream/);
    assert.ok(stream.headers['x-request-id'], 'streams carry X-Request-Id too');
    const events = await stream.rest();
    checkStreamFraming(events, jsonEvents, 'completed');
    assert.is(events[0]!.data.status, 'completed');
  }
});

test('SSE follows an open run live until it completes, then ends with done', async ({ api }) => {
  const { workflowId, runId } = await start(api, 'awaits_feedback', {}, uniqueId('h-live'));
  const stream = await openEventStream(api, `${wf(workflowId)}/history`);
  assert.is(stream.status, 200);
  const first = await stream.next();
  assert.is(first?.event, 'workflow');
  assert.is(first?.data.status, 'running');
  assert.is(first?.data.runId, runId);
  const before = await historyEvents(api, workflowId, runId);
  const received: SseEvent[] = [first!];
  for (let index = 0; index < before.length; index++) received.push((await stream.next())!);
  assert.ok(received.slice(1).every((event) => event.event === 'history'), 'the existing events came first');

  const feedback = await http(api, 'POST', '/workflow/feedback', { json: { workflowId, payload: { approved: true } } });
  expectStatus(feedback, 200);
  received.push(...(await stream.rest()));
  const after = await historyEvents(api, workflowId, runId);
  assert.ok(after.length > before.length, 'the run wrote events after the stream opened');
  checkStreamFraming(received, after, 'completed');
  assert.ok(after.some((event) => event.type === 'workflow_completed'));
});

test('Last-Event-ID resumes: only later events, then done', async ({ api }) => {
  const run = await runAndWait(api, { workflowName: 'arithmetic', workflowId: uniqueId('h-resume'), input: { n: 1 } });
  const all = await historyEvents(api, run.workflowId, run.runId);
  const resumeAfter = 3;
  assert.ok(all.length > resumeAfter + 1);
  const stream = await openEventStream(api, `${wf(run.workflowId, run.runId)}/history`, { 'last-event-id': String(resumeAfter) });
  assert.is(stream.status, 200);
  const events = await stream.rest();
  const history = events.filter((event) => event.event === 'history');
  assert.equal(
    history.map((event) => event.data),
    all.filter((event) => event.eventId > resumeAfter),
    'exactly the events after Last-Event-ID',
  );
  assert.equal(events.at(-1), { event: 'done', data: { status: 'completed' } });

  const garbled = await openEventStream(api, `${wf(run.workflowId)}/history`, { 'last-event-id': 'yesterday' });
  assert.is(garbled.status, 400, 'a Last-Event-ID that is not an event id is refused');
  garbled.close();
});

test('SSE of a closed failed run ends with done {status: failed}', async ({ api }) => {
  const run = await runAndWait(api, { workflowName: 'fails_in_step', workflowId: uniqueId('h-failed'), input: { reason: 'no' } });
  const stream = await openEventStream(api, `${wf(run.workflowId)}/history`);
  const events = await stream.rest();
  checkStreamFraming(events, await historyEvents(api, run.workflowId, run.runId), 'failed');
  const failedStep = events.find((event) => event.data?.type === 'step_failed');
  assert.is(failedStep?.data.stepName, 'reject_invoice');
});

test('SSE of the first run of a continue-as-new chain ends with done {status: continued_as_new}', async ({ api }) => {
  const { workflowId, runId } = await start(api, 'countdown', { n: 1 }, uniqueId('h-can'));
  const stream = await openEventStream(api, `${wf(workflowId, runId)}/history`);
  const events = await stream.rest();
  const jsonEvents = await historyEvents(api, workflowId, runId);
  checkStreamFraming(events, jsonEvents, 'continued_as_new');
  assert.is(jsonEvents.at(-1).type, 'workflow_continued_as_new');
});

test('Last-Event-ID of the last event of a closed run: 204, the client has it all; an earlier one still streams', async ({ api }) => {
  const run = await runAndWait(api, { workflowName: 'echo', workflowId: uniqueId('h-resume-end'), input: { message: 'x' } });
  const all = await historyEvents(api, run.workflowId, run.runId);
  const lastId = all.at(-1).eventId as number;
  for (const path of [`${wf(run.workflowId, run.runId)}/history`, `${wf(run.workflowId)}/history`]) {
    const caughtUp = await openEventStream(api, path, { 'last-event-id': String(lastId) });
    assert.is(caughtUp.status, 204, `${path}: a reconnect after the closing event`);
    assert.ok(caughtUp.headers['x-request-id']);
    assert.is(caughtUp.headers['content-length'], undefined, 'a 204 announces no body');
    assert.equal(await caughtUp.rest(), []);
    const beyond = await openEventStream(api, path, { 'last-event-id': `${lastId + 5}` });
    assert.is(beyond.status, 204, 'an id past the end: nothing left to send either');
    beyond.close();
  }
  const oneBefore = await openEventStream(api, `${wf(run.workflowId)}/history`, { 'last-event-id': String(lastId - 1) });
  assert.is(oneBefore.status, 200);
  const events = await oneBefore.rest();
  assert.equal(events.map((event) => event.event), ['workflow', 'history', 'done']);
  assert.is(events[1]!.data.eventId, lastId);
});

test('Accept weighs by quality: JSON when the client prefers it, the stream when it prefers that', async ({ api }) => {
  const run = await runAndWait(api, { workflowName: 'echo', workflowId: uniqueId('h-accept'), input: { message: 'x' } });
  const path = `${wf(run.workflowId)}/history`;
  const preferJson = await http(api, 'GET', path, { headers: { accept: 'application/json, text/event-stream;q=0.1' } });
  expectStatus(preferJson, 200);
  assert.match(preferJson.headers['content-type'] ?? '', /^application\/json/);
  assert.equal(keys(preferJson.body), ['events', 'nextPageToken', 'workflow']);
  const anything = await http(api, 'GET', path, { headers: { accept: '*/*' } });
  assert.match(anything.headers['content-type'] ?? '', /^application\/json/, '*/* keeps the JSON page');
  for (const accept of ['text/event-stream', 'application/json;q=0.5, text/event-stream;q=0.9']) {
    const stream = await openEventStream(api, path, { accept });
    assert.is(stream.status, 200, accept);
    assert.match(stream.headers['content-type'] ?? '', /^text\/event-stream/, accept);
    assert.equal((await stream.rest()).at(-1), { event: 'done', data: { status: 'completed' } });
  }
});

test('an EventSource on the latest-run URL, its run continued as new, streams the next run from its start', async ({ api }) => {
  const workflowId = uniqueId('h-es-chain');
  const first = await start(api, 'continues_into_wait', { ms: 2000 }, workflowId);
  const source = new EventSource(`${api.baseUrl}${wf(workflowId)}/history`);
  const received: { event: string; runId?: string; lastEventId: string; data: any }[] = [];
  try {
    for (const name of ['workflow', 'history', 'done']) {
      source.addEventListener(name, (message) => {
        const data = JSON.parse(message.data);
        received.push({ event: name, lastEventId: message.lastEventId, data, ...(name === 'workflow' ? { runId: data.runId } : {}) });
      });
    }
    const secondRun = () => received.filter((item) => item.event === 'workflow').at(1);
    await eventually('the reconnect streamed the next run', () => secondRun() !== undefined && received.at(-1)?.data?.type === 'feedback_wait_started', { timeoutMs: 30_000, intervalMs: 20 });
    const continued = received.find((item) => item.event === 'done')!;
    assert.equal(continued.data, { status: 'continued_as_new' });
    assert.is(continued.lastEventId, '', 'done clears the id: the reconnect sends no Last-Event-ID of the run before');
    assert.is.not(secondRun()!.runId, first.runId);
    expectStatus(await http(api, 'POST', '/workflow/feedback', { json: { workflowId, payload: { approved: true } } }), 200);
    await eventually('the next run ended', () => received.filter((item) => item.event === 'done').length === 2, { timeoutMs: 30_000, intervalMs: 20 });
    const index = received.indexOf(secondRun()!);
    const nextRunHistory = received.slice(index + 1).filter((item) => item.event === 'history').map((item) => item.data);
    assert.equal(nextRunHistory, await historyEvents(api, workflowId, secondRun()!.runId!), 'every event of the next run, from its first');
    assert.equal(received.at(-1)!.data, { status: 'completed' });
  } finally {
    source.close();
  }
});

test('a standard EventSource (the eventsource package) stops once the run has ended: no reconnect loop', async ({ api }) => {
  const { workflowId, runId } = await start(api, 'awaits_feedback', {}, uniqueId('h-eventsource'));
  const path = `${wf(workflowId, runId)}/history`;
  const source = new EventSource(`${api.baseUrl}${path}`);
  const received: string[] = [];
  const statuses: number[] = [];
  try {
    const closed = new Promise<ErrorEvent>((resolve) => {
      source.addEventListener('error', (error) => {
        if (error.code !== undefined) statuses.push(error.code);
        if (source.readyState === EventSource.CLOSED) resolve(error);
      });
    });
    for (const name of ['workflow', 'history', 'done']) source.addEventListener(name, () => received.push(name));
    await eventually('the stream delivered the history so far', () => received.includes('history'), { timeoutMs: 15_000, intervalMs: 20 });
    expectStatus(await http(api, 'POST', '/workflow/feedback', { json: { workflowId, payload: { approved: true } } }), 200);
    const ended = await withTimeout(closed, 15_000, 'the EventSource never gave up reconnecting');
    assert.is(ended.code, 204, `it stopped on the 204: ${ended.message}`);
    // Nothing reconnects any more: the requests the server saw stay at two (the stream, the reconnect answered 204).
    await new Promise((resolve) => setTimeout(resolve, 4_000));
    const requests = api.logs.filter((line) => line.msg === 'http request' && line.path === path);
    assert.equal(requests.map((line) => line.status), [200, 204]);
    assert.is(received.filter((name) => name === 'done').length, 1, 'done once, not again and again');
    assert.is(received.filter((name) => name === 'workflow').length, 1);
    assert.is(source.readyState, EventSource.CLOSED);
  } finally {
    source.close();
  }
});

async function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(what)), ms)));
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

test.run();
