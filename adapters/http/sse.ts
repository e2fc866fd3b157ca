import type { HistoryStreamItem } from '../../core/api/views.js';
import { knownJsonText } from '../../core/domain/json.js';
import { parseStreamPosition, type StreamPosition } from '../../core/domain/progress.js';
import { negotiate } from './negotiation.js';
import { nextTurn } from './responseBody.js';
import { firstHeader, type RequestHeaders } from './types.js';
import { validationProblem } from './validation.js';

export const EVENT_STREAM_CONTENT_TYPE = 'text/event-stream';
const JSON_MEDIA_TYPE = 'application/json';
export const SSE_KEEP_ALIVE = ': keep-alive\n\n';

export const SSE_RESPONSE_HEADERS: Readonly<Record<string, string>> = {
  'content-type': 'text/event-stream; charset=utf-8',
  // no-transform: compressing proxies buffer, which would hold events back.
  'cache-control': 'no-cache, no-transform',
  // nginx buffers proxied responses unless told otherwise.
  'x-accel-buffering': 'no',
};

/**
 * One event. JSON.stringify never emits a raw newline, so `data` is always a single line; nor does the JSON text an
 * engine hands with a history event (JSON_TEXT), which is written as it is.
 */
export function formatSseEvent(event: string, data: unknown, id?: number | string): string {
  const idLine = id === undefined ? '' : `id: ${id}\n`;
  return `event: ${event}\n${idLine}data: ${knownJsonText(data) ?? JSON.stringify(data)}\n\n`;
}

/**
 * Whether the history endpoints answer the event stream rather than their JSON page (the default): `Accept` weighs
 * them by quality (negotiation.ts), so `application/json, text/event-stream;q=0.1` is answered with JSON.
 */
export function prefersEventStream(headers: RequestHeaders): boolean {
  return negotiate(headers, [JSON_MEDIA_TYPE, EVENT_STREAM_CONTENT_TYPE]) === EVENT_STREAM_CONTENT_TYPE;
}

/**
 * `Last-Event-ID` as sent by EventSource after a reconnect: the id of the last event received, a history event id
 * or a progress event's position (core/domain/progress.ts).
 */
export function parseLastEventId(headers: RequestHeaders): StreamPosition | undefined {
  const value = firstHeader(headers, 'last-event-id')?.trim();
  if (value === undefined || value === '') return undefined;
  const position = parseStreamPosition(value);
  if (!position) {
    throw validationProblem(
      'Last-Event-ID must be an event id of this stream: a non-negative integer history event id, or a progress event id.',
      'invalid_last_event_id',
      ['Last-Event-ID'],
    );
  }
  return position;
}

export interface EventStreamOptions {
  heartbeatMs: number;
  /** Ends the stream (client gone, server shutting down). */
  signal: AbortSignal;
  /** Body of the final `error` event when the source fails after the response has started; may log. */
  describeFailure(error: unknown): { error: string; message: string };
}

/** What the source answered to one next(). */
type Answer<T> = { result: IteratorResult<T> } | { error: unknown };

/**
 * Frames history items as server-sent events, with a keep-alive comment whenever the source has been quiet for
 * `heartbeatMs`. Ends after `done`, when the source ends, or as soon as `signal` aborts (without waiting for the
 * source, which may be blocked on an engine long-poll).
 */
export async function* historyEventStream(
  items: AsyncIterable<HistoryStreamItem>,
  options: EventStreamOptions,
): AsyncGenerator<string, void, undefined> {
  const { signal } = options;
  if (signal.aborted) return;
  const iterator = items[Symbol.asyncIterator]();
  // The source's answer to the one next() asked (a heartbeat must not make us ask twice), watched once: a wait is
  // made anew for each heartbeat and let go after it. Racing the pending next() at every heartbeat would hang one
  // more reaction on it each time (a stream idle for a day: 5,760 of them), and a wait settled only by an event
  // would hold every event sent.
  let answer: Answer<HistoryStreamItem> | undefined;
  let asked = false;
  let wakeUp: (() => void) | undefined;
  // Whether the source has ended by itself; otherwise it is told to stop on the way out.
  let sourceEnded = false;
  try {
    while (true) {
      // An abort while the last event was being sent: its listener below would never fire.
      if (signal.aborted) return;
      if (!asked) {
        asked = true;
        iterator.next().then(
          (result) => {
            answer = { result };
            wakeUp?.();
          },
          (error: unknown) => {
            answer = { error };
            wakeUp?.();
          },
        );
      }
      if (!answer) {
        let stopWaiting!: () => void;
        const interruption = await new Promise<'answer' | 'heartbeat' | 'aborted'>((resolve) => {
          const aborted = () => resolve('aborted');
          const timer = setTimeout(() => resolve('heartbeat'), options.heartbeatMs);
          signal.addEventListener('abort', aborted, { once: true });
          wakeUp = () => resolve('answer');
          stopWaiting = () => {
            clearTimeout(timer);
            signal.removeEventListener('abort', aborted);
            wakeUp = undefined;
          };
        });
        stopWaiting();
        if (interruption === 'aborted') return;
        if (interruption === 'heartbeat') {
          yield SSE_KEEP_ALIVE;
          continue;
        }
      }
      const step = answer!;
      answer = undefined;
      asked = false;
      if ('error' in step) {
        sourceEnded = true;
        if (signal.aborted) return;
        yield formatSseEvent('error', options.describeFailure(step.error));
        return;
      }
      if (step.result.done) {
        sourceEnded = true;
        return;
      }
      const item = step.result.value;
      yield item.event === 'workflow' ? formatSseEvent(item.event, item.data) : formatSseEvent(item.event, item.data, item.id);
      if (item.event === 'done') return;
      // Other requests get their turn between events: a stream's backlog (a large history) comes from memory or one
      // read at a time without waiting, and while a client's kernel buffers take event after event, sending it would
      // otherwise hold the event loop (40 streams of a 12 MB history kept /health waiting for seconds).
      await nextTurn();
    }
  } finally {
    if (!sourceEnded) {
      // The source may be mid-await; its return() then settles later. Nobody waits for it, and a late
      // rejection must not become an unhandled one (a pending next()'s is caught where it is watched).
      void Promise.resolve(iterator.return?.()).catch(() => undefined);
    }
  }
}
