import { WorkflowNotFoundError } from '../../core/domain/errors.js';
import type { RunRef } from '../../core/domain/run.js';
import type { RunRecord } from './runRecord.js';

/**
 * The runs the engine remembers: by run id, by workflow id (start order, so the last is the latest) and in
 * insertion order. Closed runs beyond `maxClosedRuns` are forgotten, oldest close first.
 */
export class RunStore {
  private readonly byRunId = new Map<string, RunRecord>();
  private readonly byWorkflowId = new Map<string, RunRecord[]>();
  private closedQueue: RunRecord[] = [];
  private closedHead = 0;
  private sequence = 0;
  private openRuns = 0;

  constructor(private readonly maxClosedRuns: number) {}

  nextSequence(): number {
    this.sequence += 1;
    return this.sequence;
  }

  /** Runs added and not yet closed. */
  get openCount(): number {
    return this.openRuns;
  }

  add(record: RunRecord): void {
    this.openRuns += 1;
    this.byRunId.set(record.description.runId, record);
    const runs = this.byWorkflowId.get(record.description.workflowId);
    if (runs) runs.push(record);
    else this.byWorkflowId.set(record.description.workflowId, [record]);
  }

  markClosed(record: RunRecord): void {
    this.openRuns -= 1;
    this.closedQueue.push(record);
    while (this.closedQueue.length - this.closedHead > this.maxClosedRuns) {
      const oldest = this.closedQueue[this.closedHead];
      this.closedHead += 1;
      if (oldest) this.forget(oldest);
    }
    // Drop the consumed head now and then instead of shifting on every eviction.
    if (this.closedHead > 1024 && this.closedHead * 2 > this.closedQueue.length) {
      this.closedQueue = this.closedQueue.slice(this.closedHead);
      this.closedHead = 0;
    }
  }

  latest(workflowId: string): RunRecord | undefined {
    const runs = this.byWorkflowId.get(workflowId);
    return runs?.[runs.length - 1];
  }

  /** A pinned run, or the latest run of the id; WorkflowNotFoundError otherwise. */
  find(ref: RunRef): RunRecord {
    if (ref.runId === undefined) {
      const latest = this.latest(ref.workflowId);
      if (!latest) throw new WorkflowNotFoundError(`Workflow ${ref.workflowId} not found`, { workflowId: ref.workflowId });
      return latest;
    }
    const record = this.byRunId.get(ref.runId);
    if (!record || record.description.workflowId !== ref.workflowId) {
      throw new WorkflowNotFoundError(`Run ${ref.runId} of workflow ${ref.workflowId} not found`, {
        workflowId: ref.workflowId,
        runId: ref.runId,
      });
    }
    return record;
  }

  /** Every run, in insertion order. */
  all(): IterableIterator<RunRecord> {
    return this.byRunId.values();
  }

  /** Runs still open (for engine shutdown). */
  *open(): IterableIterator<RunRecord> {
    for (const record of this.byRunId.values()) if (!record.closed) yield record;
  }

  private forget(record: RunRecord): void {
    const { runId, workflowId } = record.description;
    this.byRunId.delete(runId);
    const runs = this.byWorkflowId.get(workflowId);
    if (!runs) return;
    const index = runs.indexOf(record);
    if (index !== -1) runs.splice(index, 1);
    if (runs.length === 0) this.byWorkflowId.delete(workflowId);
  }
}
