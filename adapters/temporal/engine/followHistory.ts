import { isClosingEventType, type HistoryEvent as NeutralEvent } from '../../../core/domain/history.js';
import type { PinnedRunRef } from '../../../core/domain/run.js';
import type { HistoryEvent as RawEvent } from './proto.js';
import { isInternalWorkflowType } from '../protocol.js';
import type { TemporalCalls } from './calls.js';
import { runNotFound } from '../../../core/domain/errors.js';
import { HistoryMapper } from './historyMapper.js';
import { rawEventBytes } from './historyPage.js';
import { fetchHistoryPage } from './historyReader.js';

/** Longest wait for one long poll; Temporal answers within about 20 s, with or without news. */
export const LONG_POLL_TIMEOUT_MS = 70_000;
/**
 * How much one long poll asks for. Temporal counts a page in batches of events (the events one task wrote together), not
 * in bytes, and a follower holds its page while its client does not read: the payloads of a page are views of the one
 * buffer its answer came in, so that buffer stays until the page's last event is sent. The first poll asks for a few
 * batches; each next one for about a history page's bytes (HISTORY_PAGE_MAX_BYTES) by what the last one's batches
 * weighed, so a history of small events is still read 1000 batches at a time and one of large events one at a time.
 */
const FIRST_FOLLOW_PAGE_SIZE = 5;
const MAX_FOLLOW_PAGE_SIZE = 1000;

/** `asked` batches came as `events` events of `bytes` in all, the largest of `largest`; the next poll's batches for `readAheadBytes`. */
function nextFollowPageSize(asked: number, events: number, bytes: number, largest: number, readAheadBytes: number): number {
  if (events === 0) return MAX_FOLLOW_PAGE_SIZE;
  // A batch weighs at least its largest event; on average, the page's bytes over its batches (at most one per event).
  const perBatch = Math.max(1, largest, bytes / Math.min(asked, events));
  return Math.max(1, Math.min(MAX_FOLLOW_PAGE_SIZE, Math.floor(readAheadBytes / perBatch)));
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
  /** About how many bytes of events one long poll reads (HISTORY_PAGE_MAX_BYTES): what a follower holds at most. */
  readAheadBytes: number,
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
    let largest = 0;
    for (let index = 0; index < events.length; index += 1) {
      const raw = events[index]!;
      // Let go of each raw event once mapped (what it holds apart from the answer's buffer: payloads read from the
      // claim-check store, the decoded fields).
      events[index] = undefined;
      const size = rawEventBytes(raw);
      bytes += size;
      largest = Math.max(largest, size);
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
    pageSize = nextFollowPageSize(pageSize, page.events.length, bytes, largest, readAheadBytes);
  }
}
