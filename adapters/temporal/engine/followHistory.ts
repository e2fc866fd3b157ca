import { HISTORY_PAGE_MAX_BYTES, isClosingEventType, type HistoryEvent as NeutralEvent } from '../../../core/domain/history.js';
import type { PinnedRunRef } from '../../../core/domain/run.js';
import type { HistoryEvent as RawEvent } from './proto.js';
import { isInternalWorkflowType } from '../protocol.js';
import type { TemporalCalls } from './calls.js';
import { runNotFound } from './errors.js';
import { HistoryMapper } from './historyMapper.js';
import { rawEventBytes } from './historyPage.js';
import { fetchHistoryPage } from './historyReader.js';

/** Longest wait for one long poll; Temporal answers within about 20 s, with or without news. */
export const LONG_POLL_TIMEOUT_MS = 70_000;
/**
 * Raw events per long poll: Temporal counts pages in events, not bytes, and a follower holds the rest of its page
 * while its client does not read. The first page is small; each next one is sized from the last one's events to about
 * a history page's bytes (HISTORY_PAGE_MAX_BYTES), so a history of small events is still read 1000 at a time and one of
 * large events a few at a time.
 */
const FIRST_FOLLOW_PAGE_SIZE = 25;
const MAX_FOLLOW_PAGE_SIZE = 1000;
const MIN_FOLLOW_PAGE_SIZE = 5;

function nextFollowPageSize(events: readonly RawEvent[], bytes: number): number {
  if (events.length === 0) return MAX_FOLLOW_PAGE_SIZE;
  const perEvent = Math.max(1, bytes / events.length);
  return Math.max(MIN_FOLLOW_PAGE_SIZE, Math.min(MAX_FOLLOW_PAGE_SIZE, Math.floor(HISTORY_PAGE_MAX_BYTES / perEvent)));
}

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
  let pageSize = FIRST_FOLLOW_PAGE_SIZE;
  let checkedType = false;
  for (;;) {
    if (signal.aborted || calls.closed) return;
    let page;
    try {
      page = await fetchHistoryPage(
        calls,
        run,
        { maximumPageSize: pageSize, nextPageToken, waitNewEvent: true },
        { signal, timeoutMs: LONG_POLL_TIMEOUT_MS },
      );
    } catch (error) {
      if (signal.aborted || calls.closed) return;
      throw error;
    }
    const events: (RawEvent | undefined)[] = page.events;
    let bytes = 0;
    for (let index = 0; index < events.length; index += 1) {
      const raw = events[index]!;
      // Let go of each raw event once mapped: a follower waiting on its client holds what it has not sent yet.
      events[index] = undefined;
      bytes += rawEventBytes(raw);
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
    pageSize = nextFollowPageSize(page.events, bytes);
  }
}
