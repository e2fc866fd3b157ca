import type { RunRef } from '../../../core/domain/run.js';
import type { RunRecord } from '../runRecord.js';

/** What the store holds (EmbeddedEngine.usage). */
export interface StoreUsage {
  openRuns: number;
  closedRuns: number;
  /** Bytes the closed runs keep, about (RunRecord.retainedBytes): what MEMORY_MAX_CLOSED_BYTES bounds. */
  closedBytes: number;
}

/** A closed run waiting for its eviction, with the bytes it was counted for. */
interface ClosedEntry<Run> {
  record: Run;
  bytes: number;
}

/** The part of a record the index reads: tests hand it plain objects. */
export type IndexedRun = Pick<RunRecord, 'description' | 'closed' | 'retainedBytes'>;

/**
 * The runs the memory store remembers: by run id, by workflow id (start order, so the last is the latest) and in
 * insertion order. Closed runs are forgotten oldest close first, as soon as there are more than `maxClosedRuns` of
 * them or they keep more than `maxClosedBytes` together (a run bigger than that alone is forgotten as it closes; its
 * waiters still get their answer).
 */
export class MemoryRunIndex<Run extends IndexedRun = RunRecord> {
  private readonly byRunId = new Map<string, Run>();
  private readonly byWorkflowId = new Map<string, Run[]>();
  /** Closed runs in close order from `closedHead` on; consumed slots are emptied so an evicted run is released. */
  private closedQueue: (ClosedEntry<Run> | undefined)[] = [];
  private closedHead = 0;
  private closedBytes = 0;
  private sequence = 0;
  private openRuns = 0;

  constructor(
    private readonly maxClosedRuns: number,
    private readonly maxClosedBytes: number = Number.POSITIVE_INFINITY,
  ) {}

  nextSequence(): number {
    this.sequence += 1;
    return this.sequence;
  }

  /** Runs added and not yet closed. */
  get openCount(): number {
    return this.openRuns;
  }

  usage(): StoreUsage {
    return { openRuns: this.openRuns, closedRuns: this.closedQueue.length - this.closedHead, closedBytes: this.closedBytes };
  }

  add(record: Run): void {
    this.openRuns += 1;
    this.byRunId.set(record.description.runId, record);
    const runs = this.byWorkflowId.get(record.description.workflowId);
    if (runs) runs.push(record);
    else this.byWorkflowId.set(record.description.workflowId, [record]);
  }

  markClosed(record: Run): void {
    this.openRuns -= 1;
    const entry: ClosedEntry<Run> = { record, bytes: record.retainedBytes };
    this.closedQueue.push(entry);
    this.closedBytes += entry.bytes;
    while (this.closedQueue.length - this.closedHead > this.maxClosedRuns || this.closedBytes > this.maxClosedBytes) {
      const oldest = this.closedQueue[this.closedHead];
      if (!oldest) break;
      this.closedQueue[this.closedHead] = undefined;
      this.closedHead += 1;
      this.closedBytes -= oldest.bytes;
      this.forget(oldest.record);
    }
    // Drop the consumed head now and then instead of shifting on every eviction.
    if (this.closedHead > 1024 && this.closedHead * 2 > this.closedQueue.length) {
      this.closedQueue = this.closedQueue.slice(this.closedHead);
      this.closedHead = 0;
    }
  }

  latest(workflowId: string): Run | undefined {
    const runs = this.byWorkflowId.get(workflowId);
    return runs?.[runs.length - 1];
  }

  /** The runs of an id the store still has, oldest start first. */
  runsOf(workflowId: string): readonly Run[] {
    return this.byWorkflowId.get(workflowId) ?? [];
  }

  /** A pinned run, or the latest run of the id; undefined when the store has none. */
  lookup(ref: RunRef): Run | undefined {
    if (ref.runId === undefined) return this.latest(ref.workflowId);
    const record = this.byRunId.get(ref.runId);
    return record && record.description.workflowId === ref.workflowId ? record : undefined;
  }

  /** Every run, in insertion order. */
  all(): IterableIterator<Run> {
    return this.byRunId.values();
  }

  /** Runs still open (for engine shutdown). */
  *open(): IterableIterator<Run> {
    for (const record of this.byRunId.values()) if (!record.closed) yield record;
  }

  private forget(record: Run): void {
    const { runId, workflowId } = record.description;
    this.byRunId.delete(runId);
    const runs = this.byWorkflowId.get(workflowId);
    if (runs) {
      const index = runs.indexOf(record);
      if (index !== -1) runs.splice(index, 1);
      if (runs.length === 0) this.byWorkflowId.delete(workflowId);
    }
  }
}
