import { isClosingEventType, type HistoryEvent as NeutralEvent } from '../../../core/domain/history.js';
import type { PinnedRunRef } from '../../../core/domain/run.js';
import type { HistoryEvent as RawEvent } from './proto.js';
import { isInternalWorkflowType } from '../protocol.js';
import type { TemporalCalls } from './calls.js';
import { runNotFound } from './errors.js';
import { HistoryMapper } from './historyMapper.js';
import { fetchHistoryPage } from './historyReader.js';

/** Longest wait for one long poll; Temporal answers within about 20 s, with or without news. */
export const LONG_POLL_TIMEOUT_MS = 70_000;
const FOLLOW_PAGE_SIZE = 1000;

/**
 * Every neutral event after `afterEventId`, then live ones, by long polls (`waitNewEvent`): the server holds each
 * request until something happens, so nothing polls in a loop. Ends after the closing event, and at once, quietly,
 * when `signal` aborts (the gRPC request is cancelled) or the engine closes. Neutral ids are counted from the first
 * event, so the history is always read from its start.
 */
export async function* followRunHistory(
  calls: TemporalCalls,
  run: PinnedRunRef,
  afterEventId: number,
  signal: AbortSignal,
  /** Sees every event read, from the first, with its neutral form if it has one, just before it is yielded. */
  observe?: (raw: RawEvent, event: NeutralEvent | undefined) => void,
): AsyncGenerator<NeutralEvent> {
  const mapper = new HistoryMapper();
  let nextPageToken: Uint8Array | undefined;
  let checkedType = false;
  for (;;) {
    if (signal.aborted || calls.closed) return;
    let page;
    try {
      page = await fetchHistoryPage(
        calls,
        run,
        { maximumPageSize: FOLLOW_PAGE_SIZE, nextPageToken, waitNewEvent: true },
        { signal, timeoutMs: LONG_POLL_TIMEOUT_MS },
      );
    } catch (error) {
      if (signal.aborted || calls.closed) return;
      throw error;
    }
    for (const raw of page.events) {
      if (!checkedType) {
        checkedType = true;
        if (isInternalWorkflowType(raw.workflowExecutionStartedEventAttributes?.workflowType?.name)) throw runNotFound(run.workflowId, run.runId);
      }
      const event = mapper.map(raw);
      observe?.(raw, event);
      if (!event) continue;
      if (event.eventId > afterEventId) yield event;
      if (isClosingEventType(event.type)) return;
    }
    if (!page.nextPageToken) return;
    nextPageToken = page.nextPageToken;
  }
}
