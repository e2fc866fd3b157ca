import { EventEmitter, once } from 'node:events';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as assert from 'uvu/assert';
import { uniqueId } from '../support/http.js';
import {
  contractSuite,
  expectError,
  historyEvents,
  http,
  ISO_UTC,
  keys,
  openEventStream,
  start,
  wf,
  type EventStream,
  type SseEvent,
} from '../support/contract.js';

/**
 * `progress(fields)` from step code: `progress` events of the history stream, in order, live and after a reconnect
 * (Last-Event-ID), never in the history itself (issue 9, docs/progress.md).
 */
const test = contractSuite('progress');

const PROGRESS_KEYS = ['attempt', 'fields', 'seq', 'stepEventId', 'stepName', 'time'];
/** Events of a run of reports_progress: progress adds none. */
const HISTORY_TYPES = ['workflow_started', 'step_scheduled', 'step_started', 'step_completed', 'workflow_completed'];

/**
 * Gates the fixture step waits at (tests/fixtures/steps/progress.ts): a GET to `<url>/<i>` is answered once the
 * test releases gate i, so the test decides when the step goes on. A real loopback server, closed by the test.
 */
interface Gates {
  url: string;
  release(index: number): void;
  /** Answers the step waiting at gate `index` with a 503, which fails its attempt; the gate stays closed. */
  fail(index: number): Promise<void>;
  close(): Promise<void>;
}

async function startGates(): Promise<Gates> {
  const waiting = new Map<string, ServerResponse[]>();
  const released = new Set<string>();
  const arrivals = new EventEmitter();
  const server: Server = createServer((request, response) => {
    const path = request.url ?? '';
    if (released.has(path)) response.end('open');
    else waiting.set(path, [...(waiting.get(path) ?? []), response]);
    arrivals.emit(path);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const prefix = `/${uniqueId('gate')}`;
  return {
    url: `http://127.0.0.1:${port}${prefix}`,
    release(index) {
      const path = `${prefix}/${index}`;
      released.add(path);
      for (const response of waiting.get(path) ?? []) response.end('open');
      waiting.delete(path);
    },
    async fail(index) {
      const path = `${prefix}/${index}`;
      // The step reaches the gate after its progress calls; the test may get there first.
      if ((waiting.get(path) ?? []).length === 0) await once(arrivals, path);
      for (const response of waiting.get(path) ?? []) response.writeHead(503).end('closed');
      waiting.delete(path);
    },
    async close() {
      for (const responses of waiting.values()) for (const response of responses) response.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Reads events until `until` holds for the last one read; returns them all. */
async function readUntil(stream: EventStream, until: (event: SseEvent) => boolean): Promise<SseEvent[]> {
  const events: SseEvent[] = [];
  for (;;) {
    const event = await stream.next(30_000);
    assert.ok(event, `the stream ended early after ${JSON.stringify(events.map((e) => e.event))}`);
    events.push(event);
    if (until(event)) return events;
  }
}

const progressSeq = (seq: number) => (event: SseEvent) => event.event === 'progress' && event.data.seq === seq;
const progressOf = (events: SseEvent[]): SseEvent[] => events.filter((event) => event.event === 'progress');

async function withGates(body: (gates: Gates) => Promise<void>): Promise<void> {
  const gates = await startGates();
  try {
    await body(gates);
  } finally {
    // Whatever happened, no step stays parked at a gate.
    for (let index = 0; index < 4; index += 1) gates.release(index);
    await gates.close();
  }
}

test('progress events arrive live, in order, between the step_scheduled and the end of their step; the history holds none', async ({ api }) => {
  await withGates(async (gates) => {
    const { workflowId, runId } = await start(api, 'reports_progress', { batches: [3, 2], gateUrl: gates.url }, uniqueId('pg-live'));
    const stream = await openEventStream(api, `${wf(workflowId)}/history`);
    try {
      assert.is(stream.status, 200);
      const received = await readUntil(stream, progressSeq(3));
      gates.release(0);
      received.push(...(await readUntil(stream, progressSeq(5))));
      gates.release(1);
      received.push(...(await stream.rest(30_000)));

      assert.is(received[0]?.event, 'workflow');
      assert.equal(received.at(-1), { event: 'done', data: { status: 'completed' } });
      const history = received.filter((event) => event.event === 'history');
      const json = await historyEvents(api, workflowId, runId);
      assert.equal(history.map((event) => event.data), json, 'the history events are exactly those of the JSON history');
      assert.equal(json.map((event) => event.type), HISTORY_TYPES, 'progress added nothing to the history');
      for (const event of history) assert.is(event.id, String(event.data.eventId), 'history ids are unchanged');

      const progress = progressOf(received);
      assert.equal(progress.map((event) => event.data.seq), [1, 2, 3, 4, 5], 'every progress event once, in order');
      assert.equal(progress.map((event) => event.data.fields), [
        { done: 1, batch: 0 }, { done: 2, batch: 0 }, { done: 3, batch: 0 }, { done: 4, batch: 1 }, { done: 5, batch: 1 },
      ]);
      const scheduled = json.find((event) => event.type === 'step_scheduled');
      const ended = json.find((event) => event.type === 'step_completed');
      for (const event of progress) {
        assert.equal(keys(event.data), PROGRESS_KEYS);
        assert.is(event.data.stepEventId, scheduled.eventId);
        assert.is(event.data.stepName, 'report_progress');
        assert.is(event.data.attempt, 1);
        assert.match(event.data.time, ISO_UTC);
        // Its place: after its step was scheduled, before the step ended; its id names the history event before it.
        const at = received.indexOf(event);
        const before = received.slice(0, at).filter((other) => other.event === 'history').at(-1);
        assert.ok(before && before.data.eventId >= scheduled.eventId && before.data.eventId < ended.eventId, `progress ${event.data.seq} in place`);
        assert.is(event.id, `${before.data.eventId}/${scheduled.eventId}.${event.data.seq}`);
      }
    } finally {
      stream.close();
    }
  });
});

test('Last-Event-ID of a progress event resumes right after it: across reconnects no progress repeats and none is missing', async ({ api }) => {
  await withGates(async (gates) => {
    const { workflowId, runId } = await start(api, 'reports_progress', { batches: [2, 2], gateUrl: gates.url }, uniqueId('pg-resume'));
    const first = await openEventStream(api, `${wf(workflowId, runId)}/history`);
    const firstEvents = await readUntil(first, progressSeq(1)).finally(() => first.close());

    const second = await openEventStream(api, `${wf(workflowId, runId)}/history`, { 'last-event-id': firstEvents.at(-1)!.id! });
    let secondEvents: SseEvent[];
    try {
      assert.is(second.status, 200);
      secondEvents = await readUntil(second, progressSeq(2));
      gates.release(0);
      secondEvents.push(...(await readUntil(second, progressSeq(3))));
    } finally {
      second.close();
    }

    const third = await openEventStream(api, `${wf(workflowId, runId)}/history`, { 'last-event-id': secondEvents.at(-1)!.id! });
    let thirdEvents: SseEvent[];
    try {
      thirdEvents = await readUntil(third, progressSeq(4));
      gates.release(1);
      thirdEvents.push(...(await third.rest(30_000)));
    } finally {
      third.close();
    }

    const all = [...firstEvents, ...secondEvents, ...thirdEvents];
    assert.equal(progressOf(all).map((event) => event.data.seq), [1, 2, 3, 4], 'each progress event exactly once over three connections');
    const history = all.filter((event) => event.event === 'history').map((event) => event.data);
    assert.equal(history, await historyEvents(api, workflowId, runId), 'each history event exactly once, in order');
    assert.equal(thirdEvents.at(-1), { event: 'done', data: { status: 'completed' } });
  });
});

test('Last-Event-ID of the history event before the progress: the progress that came after it, once', async ({ api }) => {
  await withGates(async (gates) => {
    const { workflowId, runId } = await start(api, 'reports_progress', { batches: [2], gateUrl: gates.url }, uniqueId('pg-history-id'));
    const first = await openEventStream(api, `${wf(workflowId, runId)}/history`);
    const firstEvents = await readUntil(first, progressSeq(2)).finally(() => first.close());
    const lastHistory = firstEvents.filter((event) => event.event === 'history').at(-1)!;

    const again = await openEventStream(api, `${wf(workflowId, runId)}/history`, { 'last-event-id': lastHistory.id! });
    try {
      const resumed = await readUntil(again, progressSeq(2));
      assert.equal(progressOf(resumed).map((event) => event.data.seq), [1, 2]);
      assert.equal(resumed.filter((event) => event.event === 'history'), [], 'no history event again');
      gates.release(0);
      const rest = await again.rest(30_000);
      assert.equal(progressOf(rest), []);
      assert.equal(rest.at(-1), { event: 'done', data: { status: 'completed' } });
    } finally {
      again.close();
    }
  });
});

test('seq goes on across a retry: the second attempt\'s progress follows the first\'s, with its attempt number', async ({ api }) => {
  await withGates(async (gates) => {
    const input = { batches: [1, 1], gateUrl: gates.url, retried: true };
    const { workflowId, runId } = await start(api, 'reports_progress', input, uniqueId('pg-retry'));
    const stream = await openEventStream(api, `${wf(workflowId, runId)}/history`);
    try {
      const received = await readUntil(stream, progressSeq(1));
      await gates.fail(0);
      // The second attempt reports batch 0 again (seq 2), passes gate 0, reports batch 1 (seq 3).
      received.push(...(await readUntil(stream, progressSeq(2))));
      gates.release(0);
      received.push(...(await readUntil(stream, progressSeq(3))));
      gates.release(1);
      received.push(...(await stream.rest(30_000)));
      const progress = progressOf(received).map((event) => ({ seq: event.data.seq, attempt: event.data.attempt, fields: event.data.fields }));
      assert.equal(progress, [
        { seq: 1, attempt: 1, fields: { done: 1, batch: 0 } },
        { seq: 2, attempt: 2, fields: { done: 1, batch: 0 } },
        { seq: 3, attempt: 2, fields: { done: 2, batch: 1 } },
      ]);
      assert.equal(received.at(-1), { event: 'done', data: { status: 'completed' } });
    } finally {
      stream.close();
    }
  });
});

test('progress too large fails the step with InvalidProgressError at once, without retries; the history has its one attempt', async ({ api }) => {
  const workflowId = uniqueId('pg-too-much');
  const response = await http(api, 'POST', '/workflow/run', { json: { workflowName: 'reports_too_much', workflowId, input: {} } });
  assert.is(response.status, 200);
  assert.is(response.body.status, 'failed');
  assert.is(response.body.error.name, 'InvalidProgressError');
  assert.match(response.body.error.message, /at most 4096 are allowed/);
  const events = await historyEvents(api, workflowId, response.body.runId);
  const failed = events.filter((event) => event.type === 'step_failed');
  assert.equal(failed.map((event) => [event.stepName, event.attributes.attempt]), [['report_too_much', 1]], 'one attempt, no retry');
});

test('a Last-Event-ID that is no id of the stream is 400 ValidationError; the run goes on untouched', async ({ api }) => {
  await withGates(async (gates) => {
    const { workflowId, runId } = await start(api, 'reports_progress', { batches: [1], gateUrl: gates.url }, uniqueId('pg-bad-id'));
    for (const bad of ['3/', '3/2', '3/4.1', '3/2.0', '3/0.1', 'x/1.1', '3/2.1/2.2', '3/2.1.1']) {
      const response = await http(api, 'GET', `${wf(workflowId, runId)}/history`, { headers: { accept: 'text/event-stream', 'last-event-id': bad } });
      expectError(response, 400, 'ValidationError', { maybeWorkflowId: workflowId });
      assert.ok(JSON.stringify(response.body).includes('invalid_last_event_id'), `issue code for ${bad}`);
    }
    gates.release(0);
    const done = await http(api, 'GET', `${wf(workflowId, runId)}/result?wait=30`);
    assert.is(done.status, 200);
    assert.equal(done.body.output, { reported: 1 });
  });
});

test.run();
