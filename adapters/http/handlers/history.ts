import type { HistoryPageRequest } from '../../../core/api/requests.js';
import type { HistoryPageView, HistoryStreamItem } from '../../../core/api/views.js';
import { ok, type RouteContext, type RouteInput, type RouteResult } from '../route.js';
import { historyEventStream, prefersEventStream, parseLastEventId, SSE_RESPONSE_HEADERS } from '../sse.js';
import { toRunRef, type RunPathParams } from './runs.js';

export interface HistoryQuery {
  pageSize: number;
  pageToken?: string | undefined;
}

/**
 * GET /workflow/{id}/history and /workflow/{id}/runs/{rid}/history: a JSON page, or with
 * `Accept: text/event-stream` a server-sent event stream that follows the run until it closes. A reconnect to a
 * closed run whose last event the client already has is a 204: a standard EventSource stops on it, where another
 * stream of `workflow` and `done` would have it reconnect for ever.
 */
export async function getHistory(
  input: RouteInput<RunPathParams, HistoryQuery, unknown>,
  context: RouteContext,
): Promise<RouteResult<HistoryPageView>> {
  const run = toRunRef(input.params);
  if (!prefersEventStream(input.headers)) {
    const request: HistoryPageRequest = { pageSize: input.query.pageSize };
    if (input.query.pageToken !== undefined) request.pageToken = input.query.pageToken;
    return ok(await context.api.historyPage(run, request));
  }
  const lastEventId = parseLastEventId(input.headers);
  const releaseSlot = context.eventStreams.acquire();
  // Aborted when the client leaves or when the stream ends for any other reason, so the engine stops following.
  const streamEnded = new AbortController();
  const signal = AbortSignal.any([input.signal, streamEnded.signal]);
  // A signal aborted already never fires its event: release at once then (the stream ends at once anyway).
  if (signal.aborted) releaseSlot();
  else signal.addEventListener('abort', releaseSlot, { once: true });
  let items: AsyncIterator<HistoryStreamItem>;
  let first: IteratorResult<HistoryStreamItem>;
  try {
    // Awaited before the response starts: an unknown run is still a plain 404.
    const stream = await context.api.historyStream(
      run,
      lastEventId === undefined ? { signal } : { signal, lastEventId: lastEventId.lastEventId, progressReceived: lastEventId.progress },
    );
    items = stream[Symbol.asyncIterator]();
    // A stream starts with its `workflow` event at once; only a stream with nothing to send is empty.
    first = await items.next();
  } catch (error) {
    streamEnded.abort();
    throw error;
  }
  if (first.done) {
    streamEnded.abort();
    return { kind: 'no-content' };
  }
  const frames = historyEventStream(startingWith(first.value, items), {
    heartbeatMs: context.options.sseHeartbeatMs,
    signal,
    describeFailure: (error) => context.describeStreamFailure(error),
  });
  return { kind: 'event-stream', body: abortWhenDone(frames, streamEnded), headers: { ...SSE_RESPONSE_HEADERS } };
}

async function* abortWhenDone<T>(source: AsyncIterable<T>, controller: AbortController): AsyncGenerator<T, void, undefined> {
  try {
    yield* source;
  } finally {
    controller.abort();
  }
}

/** `first`, then the rest of the stream it came from; left early, the stream is told to stop. */
async function* startingWith<T>(first: T, rest: AsyncIterator<T>): AsyncGenerator<T, void, undefined> {
  let delegated = false;
  try {
    yield first;
    delegated = true;
    yield* { [Symbol.asyncIterator]: () => rest };
  } finally {
    if (!delegated) await rest.return?.();
  }
}
