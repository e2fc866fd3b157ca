import { isClosingEventType, type HistoryEvent } from '../../../../core/domain/history.js';
import type { RunDescription, RunOutcome, SerializedFailure } from '../../../../core/domain/run.js';
import type { RunStreamItem } from '../../../../ports/engine.js';
import { descriptionCopy } from '../../runRecord.js';
import type { StoredRun } from '../engineStore.js';
import { chainInputText, descriptionOf, storedEventForReader, type EventRow, type RunRow } from './rowCodec.js';

/** What a stored run's reads need of the store. */
export interface StoredRunReads {
  /** At most `limit` events after `afterEventId`, and about `maxBytes` of them (at least one). */
  eventRows(seq: number, afterEventId: number, limit: number, maxBytes: number): EventRow[];
  eventCount(seq: number): number;
}

/** Events a follower reads from the database at a time. */
const FOLLOW_PAGE = 200;

/** A run as the durable store holds it (closed, or open but not live): read from its row and its events on demand. */
export class SqliteStoredRun implements StoredRun {
  readonly description: RunDescription;

  constructor(
    private readonly row: RunRow,
    private readonly reads: StoredRunReads,
  ) {
    this.description = descriptionOf(row);
  }

  get closed(): boolean {
    return this.description.status !== 'running';
  }

  get continuedToRunId(): string | undefined {
    return this.row.continued_to ?? undefined;
  }

  snapshot(): RunDescription {
    return descriptionCopy(this.description);
  }

  outcome(): RunOutcome {
    return {
      run: this.snapshot(),
      output: this.row.output === null ? undefined : JSON.parse(this.row.output),
      failure: this.row.failure === null ? null : (JSON.parse(this.row.failure) as SerializedFailure),
    };
  }

  inputValue(): unknown {
    return this.row.input === null ? undefined : JSON.parse(this.row.input);
  }

  chainInputValue(): unknown {
    const text = chainInputText(this.row);
    return text === null ? undefined : JSON.parse(text);
  }

  historyPage(offset: number, size: number, maxBytes: number): { events: HistoryEvent[]; visibleCount: number } {
    return { events: this.reads.eventRows(this.row.seq, offset, size, maxBytes).map(storedEventForReader), visibleCount: this.reads.eventCount(this.row.seq) };
  }

  follow(afterEventId: number, signal: AbortSignal, stopped: () => boolean, readAheadBytes: number): AsyncIterableIterator<RunStreamItem> {
    return followStored(this.reads, this.row.seq, Math.max(0, Math.floor(afterEventId)), signal, stopped, readAheadBytes);
  }
}

/**
 * A stored run's events after `afterEventId`, read a page at a time (about `readAheadBytes`: a follower whose client
 * does not read holds one page of rows); ends after the closing event or the last stored.
 */
async function* followStored(
  reads: StoredRunReads,
  seq: number,
  afterEventId: number,
  signal: AbortSignal,
  stopped: () => boolean,
  readAheadBytes: number,
): AsyncGenerator<RunStreamItem> {
  let last = afterEventId;
  for (;;) {
    if (signal.aborted || stopped()) return;
    const rows: (EventRow | undefined)[] = reads.eventRows(seq, last, FOLLOW_PAGE, readAheadBytes);
    if (rows.length === 0) return;
    for (let index = 0; index < rows.length; index += 1) {
      const event = storedEventForReader(rows[index]!);
      // Read and let go: a follower waiting on its client keeps the rows still to send, not those it sent.
      rows[index] = undefined;
      last = event.eventId;
      yield { kind: 'history', event };
      if (isClosingEventType(event.type)) return;
    }
  }
}
