import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { HistoryStreamItem } from '../../../core/api/views.js';
import { EngineError, ValidationError } from '../../../core/domain/errors.js';
import { JSON_TEXT } from '../../../core/domain/json.js';
import { formatStreamPosition } from '../../../core/domain/progress.js';
import { formatSseEvent, historyEventStream, parseLastEventId, prefersEventStream, SSE_KEEP_ALIVE } from '../../../adapters/http/sse.js';
import { closedRunStream } from './fakeApi.js';
import { eventually } from '../../support/eventually.js';

const describeFailure = (error: unknown) => ({ error: 'EngineError', message: error instanceof Error ? 'generic' : 'x' });

async function collect(stream: AsyncIterable<string>): Promise<string[]> {
  const frames: string[] = [];
  for await (const frame of stream) frames.push(frame);
  return frames;
}

/** A source driven by hand: push items, end it, or fail it; records whether return() reached it. */
function manualSource() {
  const queue: HistoryStreamItem[] = [];
  const waiting: ((result: IteratorResult<HistoryStreamItem>) => void)[] = [];
  const state = { returned: false, ended: false, failure: undefined as unknown };
  let rejectWaiting: ((error: unknown) => void) | undefined;
  const source: AsyncIterable<HistoryStreamItem> = {
    [Symbol.asyncIterator]: () => ({
      next: () =>
        new Promise<IteratorResult<HistoryStreamItem>>((resolve, reject) => {
          const item = queue.shift();
          if (item) return resolve({ done: false, value: item });
          if (state.ended) return resolve({ done: true, value: undefined });
          waiting.push(resolve);
          rejectWaiting = reject;
        }),
      return: async () => {
        state.returned = true;
        return { done: true, value: undefined };
      },
    }),
  };
  return {
    source,
    state,
    push(item: HistoryStreamItem) {
      const resolve = waiting.shift();
      if (resolve) resolve({ done: false, value: item });
      else queue.push(item);
    },
    end() {
      state.ended = true;
      waiting.shift()?.({ done: true, value: undefined });
    },
    fail(error: unknown) {
      rejectWaiting?.(error);
    },
  };
}

const tick = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

test('frames: event, optional id, one data line of JSON, blank line', () => {
  assert.is(formatSseEvent('done', { status: 'completed' }), 'event: done\ndata: {"status":"completed"}\n\n');
  assert.is(formatSseEvent('history', { eventId: 7, text: 'a\nb\r\nc' }, 7), 'event: history\nid: 7\ndata: {"eventId":7,"text":"a\\nb\\r\\nc"}\n\n');
  assert.is(formatSseEvent('history', { s: '\u2028' }, 1).split('\n').length, 5);
  assert.is(formatSseEvent('progress', { seq: 1 }, '4/2.1'), 'event: progress\nid: 4/2.1\ndata: {"seq":1}\n\n');
});

test('a closed run: workflow, one history event per engine event with its id, done, then the end', async () => {
  const frames = await collect(historyEventStream(closedRunStream('wf-1'), { heartbeatMs: 10_000, signal: new AbortController().signal, describeFailure }));
  assert.is(frames.length, 4);
  assert.match(frames[0]!, /^event: workflow\ndata: \{"workflowId":"wf-1",/);
  assert.ok(frames[0]!.endsWith('\n\n'));
  assert.match(frames[1]!, /^event: history\nid: 1\ndata: \{"eventId":1,"type":"workflow_started"/);
  assert.match(frames[2]!, /^event: history\nid: 2\ndata: .*"line\\nbreak"/);
  assert.is(frames[3], 'event: done\ndata: {"status":"completed"}\n\n');
  for (const frame of frames) assert.is(frame.split('\n').filter((line) => line.startsWith('data: ')).length, 1);
});

test('keep-alive comments while the source is quiet, without asking the source twice', async () => {
  const manual = manualSource();
  let nextCalls = 0;
  const counted: AsyncIterable<HistoryStreamItem> = {
    [Symbol.asyncIterator]: () => {
      const inner = manual.source[Symbol.asyncIterator]();
      return { next: () => ((nextCalls += 1), inner.next()), return: inner.return!.bind(inner) };
    },
  };
  const frames: string[] = [];
  const done = (async () => {
    for await (const frame of historyEventStream(counted, { heartbeatMs: 15, signal: new AbortController().signal, describeFailure })) frames.push(frame);
  })();
  // Two heartbeats of 15 ms each come however late a loaded machine runs the timers.
  await eventually(() => `two heartbeats (so far ${frames.length})`, () => frames.length >= 2, { intervalMs: 5 });
  assert.ok(frames.every((frame) => frame === SSE_KEEP_ALIVE));
  assert.is(nextCalls, 1);
  manual.push({ event: 'done', data: { status: 'cancelled' } });
  await done;
  assert.is(frames.at(-1), 'event: done\ndata: {"status":"cancelled"}\n\n');
});

test('abort ends the stream at once, even while the source is blocked, and tells the source to stop', async () => {
  const manual = manualSource();
  const controller = new AbortController();
  const frames: string[] = [];
  const done = (async () => {
    for await (const frame of historyEventStream(manual.source, { heartbeatMs: 10_000, signal: controller.signal, describeFailure })) frames.push(frame);
  })();
  manual.push({ event: 'workflow', data: { workflowId: 'w' } as never });
  await tick(5);
  controller.abort();
  await done;
  assert.is(frames.length, 1);
  assert.ok(manual.state.returned);
});

test('a consumer that stops early (client gone) also stops the source', async () => {
  const manual = manualSource();
  manual.push({ event: 'workflow', data: { workflowId: 'w' } as never });
  const stream = historyEventStream(manual.source, { heartbeatMs: 10_000, signal: new AbortController().signal, describeFailure });
  for await (const _frame of stream) break;
  assert.ok(manual.state.returned);
});

test('a failing source ends the stream with an error event from describeFailure', async () => {
  const manual = manualSource();
  const frames: string[] = [];
  const done = (async () => {
    for await (const frame of historyEventStream(manual.source, { heartbeatMs: 10_000, signal: new AbortController().signal, describeFailure })) frames.push(frame);
  })();
  await tick(5);
  manual.fail(new EngineError('grpc details'));
  await done;
  assert.equal(frames, ['event: error\ndata: {"error":"EngineError","message":"generic"}\n\n']);
});

test('a source that ends without done just ends the stream', async () => {
  const manual = manualSource();
  const done = collect(historyEventStream(manual.source, { heartbeatMs: 10_000, signal: new AbortController().signal, describeFailure }));
  manual.end();
  assert.equal(await done, []);
});

test('a history event whose JSON text the engine holds (JSON_TEXT) is framed with that text', () => {
  const event = { eventId: 4, type: 'step_completed', time: 't', attributes: { output: 1 } };
  Object.defineProperty(event, JSON_TEXT, { value: '{"eventId":4,"type":"step_completed","time":"t","attributes":{"output":1}}' });
  Object.defineProperty(event, 'attributes', { enumerable: true, get: () => assert.unreachable('the attributes are not read') });
  assert.is(formatSseEvent('history', event, 4), 'event: history\nid: 4\ndata: {"eventId":4,"type":"step_completed","time":"t","attributes":{"output":1}}\n\n');
});

test('an event sent is let go: a long stream holds the event being sent, not every event it sent', async () => {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  const manual = manualSource();
  const controller = new AbortController();
  const stream = historyEventStream(manual.source, { heartbeatMs: 10_000, signal: controller.signal, describeFailure });
  const sent = new FinalizationRegistry<number>(() => (collected += 1));
  let collected = 0;
  const events = 50;
  try {
    for (let eventId = 1; eventId <= events; eventId += 1) {
      const data = { eventId, type: 'step_completed', time: 't', attributes: { output: 'x'.repeat(1000) } };
      sent.register(data, eventId);
      manual.push({ event: 'history', id: eventId, data });
      assert.match((await stream.next()).value as string, `id: ${eventId}\n`);
    }
    // The stream is open, waiting for the next event: what it sent is garbage now.
    for (let round = 0; round < 10 && collected < events - 1; round += 1) {
      gc();
      await tick(10);
    }
    assert.ok(collected >= events - 1, `${collected} of the ${events} events sent were collected while the stream stayed open`);
  } finally {
    controller.abort();
    await stream.return(undefined);
  }
});

test('a quiet stream lets go of each heartbeat: the heap stays flat over thousands of them', async () => {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  const heapAfterCollection = async () => {
    for (let round = 0; round < 3; round += 1) {
      gc();
      await tick(1);
    }
    return process.memoryUsage().heapUsed;
  };
  const manual = manualSource(); // never answers: a run waiting for days
  const controller = new AbortController();
  const stream = historyEventStream(manual.source, { heartbeatMs: 1, signal: controller.signal, describeFailure });
  const heartbeats = async (count: number) => {
    for (let beat = 0; beat < count; beat += 1) assert.is((await stream.next()).value, SSE_KEEP_ALIVE);
  };
  try {
    await heartbeats(600);
    const before = await heapAfterCollection();
    await heartbeats(1500);
    const grown = (await heapAfterCollection()) - before;
    assert.ok(grown < 160 * 1024, `1,500 heartbeats left ${(grown / 1024).toFixed(0)} KiB behind`);
  } finally {
    controller.abort();
    await stream.return(undefined);
  }
});

test('an already aborted signal yields nothing', async () => {
  const controller = new AbortController();
  controller.abort();
  assert.equal(await collect(historyEventStream(closedRunStream('w'), { heartbeatMs: 10, signal: controller.signal, describeFailure })), []);
});

test('Accept negotiation: the event stream when the client weighs it at least as high as JSON, by name', () => {
  assert.ok(prefersEventStream({ accept: 'text/event-stream' }));
  assert.ok(prefersEventStream({ accept: 'application/json;q=0.5, Text/Event-Stream' }), 'a higher quality');
  assert.ok(prefersEventStream({ accept: 'text/event-stream, application/json' }), 'equal, and named');
  assert.ok(prefersEventStream({ accept: 'text/event-stream, */*' }));
  assert.ok(prefersEventStream({ accept: ['application/json;q=0.2', 'text/event-stream;q=0.3'] }), 'over two header lines');
  assert.not.ok(prefersEventStream({ accept: 'application/json, text/event-stream;q=0.1' }), 'a lower quality');
  assert.not.ok(prefersEventStream({ accept: 'application/json, Text/Event-Stream;q=0.5' }));
  assert.not.ok(prefersEventStream({ accept: 'text/event-stream;q=0' }));
  assert.not.ok(prefersEventStream({ accept: 'text/event-stream;q=0, */*' }), 'refused by name, whatever the wildcard says');
  assert.not.ok(prefersEventStream({ accept: 'application/json' }));
  assert.not.ok(prefersEventStream({ accept: '*/*' }));
  assert.not.ok(prefersEventStream({}));
});

test('Last-Event-ID: a non-negative integer or a progress position, else a ValidationError', () => {
  assert.is(parseLastEventId({}), undefined);
  assert.is(parseLastEventId({ 'last-event-id': '' }), undefined);
  assert.equal(parseLastEventId({ 'last-event-id': ' 42 ' }), { lastEventId: 42, progress: new Map() });
  assert.equal(parseLastEventId({ 'last-event-id': '0' }), { lastEventId: 0, progress: new Map() });
  assert.equal(parseLastEventId({ 'last-event-id': '9/2.3/7.1' }), { lastEventId: 9, progress: new Map([[2, 3], [7, 1]]) });
  const many = new Map(Array.from({ length: 100 }, (_v, i) => [i + 1, 1] as [number, number]));
  assert.equal(parseLastEventId({ 'last-event-id': formatStreamPosition({ lastEventId: 100, progress: many }) }), { lastEventId: 100, progress: many });
  const badPositions = ['9/', '9/2', '9/2.0', '9/0.1', '9/10.1', '9/2.1/2.2', '9/2.1.1'];
  for (const bad of ['-1', '1.5', 'abc', '1e3', '9'.repeat(20), ...badPositions]) {
    assert.throws(() => parseLastEventId({ 'last-event-id': bad }), (error: unknown) => error instanceof ValidationError);
  }
});

test.run();
