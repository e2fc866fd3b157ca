import type { PinnedRunRef } from '../../../core/domain/run.js';
import type { CallOptions, TemporalCalls } from './calls.js';
import { enums, type HistoryEvent } from './proto.js';

export interface RawHistoryPage {
  events: HistoryEvent[];
  /** Empty at the end of the history (of a closed run, or of an open one when not long-polling). */
  nextPageToken: Uint8Array | undefined;
}

export interface RawHistoryRequest {
  maximumPageSize?: number;
  nextPageToken?: Uint8Array | undefined;
  /** Long poll: the answer waits (up to about 20 s on the server) until there is something new. */
  waitNewEvent?: boolean;
  /** Only the run's closing event. */
  closeEventOnly?: boolean;
}

/** Raw events per request when a whole history is read (reset looks for its point in every event). */
const FULL_READ_PAGE_SIZE = 1000;

export interface HistoryReadOptions {
  /** The page token came from a client (a bad one is their error). */
  fromClient?: boolean;
  /** Leave claim checks (large payloads in S3) unresolved: for readers that need event ids and types, not values. */
  skipPayloads?: boolean;
}

/** One page of a run's raw history, large payloads resolved from the claim-check store unless `skipPayloads`. */
export async function fetchHistoryPage(
  calls: TemporalCalls,
  run: PinnedRunRef,
  request: RawHistoryRequest,
  options: CallOptions & HistoryReadOptions = {},
): Promise<RawHistoryPage> {
  const { fromClient, skipPayloads, ...callOptions } = options;
  const response = await calls.call(
    () =>
      calls.service.getWorkflowExecutionHistory({
        namespace: calls.namespace,
        execution: { workflowId: run.workflowId, runId: run.runId },
        maximumPageSize: request.maximumPageSize ?? 0,
        ...(request.nextPageToken ? { nextPageToken: request.nextPageToken } : {}),
        waitNewEvent: request.waitNewEvent ?? false,
        historyEventFilterType: request.closeEventOnly
          ? enums.HistoryEventFilterType.HISTORY_EVENT_FILTER_TYPE_CLOSE_EVENT
          : enums.HistoryEventFilterType.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT,
      }),
    { workflowId: run.workflowId, runId: run.runId, pageToken: fromClient === true },
    callOptions,
  );
  // A copy of the token: as decoded it is a view of the whole answer's buffer, and a reader holds the token while it
  // reads the next page, so it would hold this page's bytes too (a follower of a large history, two pages).
  const token = response.nextPageToken;
  const events = response.history?.events ?? [];
  return { events: skipPayloads ? events : await calls.resolvePayloads(events), nextPageToken: token && token.length > 0 ? new Uint8Array(token) : undefined };
}

/** Every event of a run as it is now, page by page. */
export async function* allHistoryEvents(calls: TemporalCalls, run: PinnedRunRef, options: HistoryReadOptions = {}): AsyncGenerator<HistoryEvent> {
  let nextPageToken: Uint8Array | undefined;
  do {
    const page = await fetchHistoryPage(calls, run, { maximumPageSize: FULL_READ_PAGE_SIZE, nextPageToken }, options);
    yield* page.events;
    nextPageToken = page.nextPageToken;
  } while (nextPageToken);
}

/** The run's first event (WorkflowExecutionStarted). */
export async function firstHistoryEvent(calls: TemporalCalls, run: PinnedRunRef, options: HistoryReadOptions = {}): Promise<HistoryEvent | undefined> {
  const page = await fetchHistoryPage(calls, run, { maximumPageSize: 1 }, options);
  return page.events[0];
}

/** The closing event of a closed run; undefined while it is open. */
export async function closeHistoryEvent(calls: TemporalCalls, run: PinnedRunRef): Promise<HistoryEvent | undefined> {
  const page = await fetchHistoryPage(calls, run, { closeEventOnly: true });
  return page.events[0];
}
