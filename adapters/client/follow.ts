import { FlowgateApiError, FlowgateTimeoutError, type AnsweredRequest } from './clientErrors.js';
import { idPathSegment } from '../../core/domain/ids.js';
import { SseParser, type SseEvent } from './sseParser.js';
import { sleep, type Transport } from './transport.js';
import type { CallOptions, HistoryDone, HistoryEvent, HistoryProgress, RunStatusView } from './types.js';

export interface FollowOptions extends CallOptions {
  /** Follow this run; without it, the latest run of the workflow id (pinned to it once its `workflow` event names it). */
  runId?: string | undefined;
  /** Start after this event id (a history `eventId`, or a progress event's id), as a reconnect would. */
  lastEventId?: string | undefined;
  /** Reconnects in a row without a new event before giving up (default 5). */
  maxReconnects?: number | undefined;
}

/** One event of the history stream (docs/api.md, "History"); `id` is what `Last-Event-ID` resumes after. */
export type FollowEvent =
  | { event: 'workflow'; data: RunStatusView }
  | { event: 'history'; id: string; data: HistoryEvent }
  | { event: 'progress'; id: string; data: HistoryProgress }
  | { event: 'done'; data: HistoryDone };

const RECONNECT_BASE_MS = 100;

/**
 * The history stream as an async iterator: `workflow` once, then `history` and `progress` events, then `done`, after
 * which it ends. A dropped connection is resumed with `Last-Event-ID` (the last id handed out), so the iteration
 * neither repeats nor skips an event; resumed after the closing event (the server answers 204), `done` carries the run's
 * status as GET status reports it. An `error` event of the stream is thrown as FlowgateApiError. Breaking out of
 * the loop closes the stream.
 */
export async function* followHistory(transport: Transport, workflowId: string, options: FollowOptions = {}): AsyncGenerator<FollowEvent, void, undefined> {
  const { signal, requestId, maxReconnects = 5 } = options;
  let runId = options.runId;
  let lastEventId = options.lastEventId;
  let announced = false;
  let failures = 0;
  for (;;) {
    const path = runId === undefined ? `/workflow/${idPathSegment(workflowId)}/history` : `/workflow/${idPathSegment(workflowId)}/runs/${idPathSegment(runId)}/history`;
    let progressed = false;
    try {
      const { response, request } = await transport.stream({
        method: 'GET',
        path,
        headers: { accept: 'text/event-stream', ...(lastEventId === undefined ? {} : { 'last-event-id': lastEventId }) },
        retrySafe: true,
        ...(signal ? { signal } : {}),
        ...(requestId ? { requestId } : {}),
      });
      const requestIdHeader = response.headers['x-request-id'];
      const answeredRequestId = Array.isArray(requestIdHeader) ? requestIdHeader[0] : requestIdHeader;
      if (response.statusCode === 204) {
        // Resumed after the closing event of a run that has ended: nothing is left to send but its status.
        await response.body.dump();
        const status = await transport.json<RunStatusView>({
          method: 'GET',
          path: `${path.slice(0, -'/history'.length)}/status`,
          retrySafe: true,
          ...(signal ? { signal } : {}),
          ...(requestId ? { requestId } : {}),
        });
        if (!announced) yield { event: 'workflow', data: status.body };
        yield { event: 'done', data: { status: status.body.status } };
        return;
      }
      if (!/^text\/event-stream\b/i.test(request.contentType?.trim() ?? '')) {
        const text = await response.body.text().catch(() => '');
        throw FlowgateApiError.notFromApi({ status: response.statusCode, body: text, requestId: answeredRequestId, request });
      }
      const parser = new SseParser();
      const decoder = new TextDecoder();
      try {
        for await (const chunk of response.body) {
          for (const raw of parser.push(decoder.decode(chunk as Uint8Array, { stream: true }))) {
            const event = parse(raw, response.statusCode, answeredRequestId, request);
            if (event === undefined) continue;
            if (event.event === 'workflow') {
              runId ??= event.data.runId;
              if (announced) continue;
              announced = true;
            } else if (event.event === 'history' || event.event === 'progress') {
              lastEventId = event.id;
            }
            progressed = true;
            yield event;
            if (event.event === 'done') return;
          }
        }
      } finally {
        // Left early (break, throw) or ended: the connection is not read further.
        response.body.destroy();
      }
    } catch (error) {
      if (signal?.aborted) throw signal.reason;
      // An answer that is not a stream to resume, or a server that does not answer: reconnecting cannot help.
      if (error instanceof FlowgateApiError || error instanceof FlowgateTimeoutError) throw error;
      if (progressed) failures = 0;
      if (++failures > maxReconnects) throw error;
      await sleep(RECONNECT_BASE_MS * 2 ** (failures - 1), signal);
      continue;
    }
    // The answer ended without `done`: cut by a proxy or a restarting server. Resume after the last event.
    if (progressed) failures = 0;
    if (++failures > maxReconnects) throw new Error(`the history stream of ${workflowId} ended ${maxReconnects + 1} times in a row without its done event`);
    await sleep(RECONNECT_BASE_MS * 2 ** (failures - 1), signal);
  }
}

/** An event of a kind this client does not know (a newer server's) is passed over. */
function parse(raw: SseEvent, status: number, requestId: string | undefined, request: AnsweredRequest): FollowEvent | undefined {
  let data: unknown;
  try {
    data = JSON.parse(raw.data) as unknown;
  } catch {
    throw FlowgateApiError.notFromApi({ status, body: raw.data, requestId, request });
  }
  if (raw.event === 'error') {
    throw FlowgateApiError.fromAnswer({ status, body: data, requestId, retryAfter: undefined, location: undefined, request });
  }
  switch (raw.event) {
    case 'workflow':
      return { event: 'workflow', data: data as RunStatusView };
    case 'history':
      return { event: 'history', id: raw.id ?? String((data as HistoryEvent).eventId), data: data as HistoryEvent };
    case 'progress':
      return { event: 'progress', id: raw.id ?? '', data: data as HistoryProgress };
    case 'done':
      return { event: 'done', data: data as HistoryDone };
    default:
      return undefined;
  }
}
