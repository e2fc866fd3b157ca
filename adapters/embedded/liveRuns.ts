import type { RunRecord } from './runRecord.js';

/**
 * The runs the engine holds in memory: open ones (running, or restored and waiting for their worker) and those whose
 * close is not committed yet. At most one of them per workflow id is open; a reset or a continue-as-new adds the next
 * run beside the closing one, in the same commit. Closed runs leave once their close is committed; the store keeps
 * them (store/engineStore.ts).
 */
export class LiveRuns {
  private readonly byRunId = new Map<string, RunRecord>();
  private readonly byWorkflowId = new Map<string, RunRecord[]>();

  get size(): number {
    return this.byRunId.size;
  }

  add(record: RunRecord): void {
    const { runId, workflowId } = record.description;
    this.byRunId.set(runId, record);
    const runs = this.byWorkflowId.get(workflowId);
    if (runs) runs.push(record);
    else this.byWorkflowId.set(workflowId, [record]);
  }

  remove(record: RunRecord): void {
    const { runId, workflowId } = record.description;
    if (this.byRunId.get(runId) === record) this.byRunId.delete(runId);
    const runs = this.byWorkflowId.get(workflowId);
    if (!runs) return;
    const index = runs.indexOf(record);
    if (index !== -1) runs.splice(index, 1);
    if (runs.length === 0) this.byWorkflowId.delete(workflowId);
  }

  get(runId: string): RunRecord | undefined {
    return this.byRunId.get(runId);
  }

  /** The latest live run of the id, committed or not (the engine's own checks). */
  latest(workflowId: string): RunRecord | undefined {
    return this.byWorkflowId.get(workflowId)?.at(-1);
  }

  /** The latest live run of the id a reader may see: its start is committed. */
  latestCommitted(workflowId: string): RunRecord | undefined {
    return this.byWorkflowId.get(workflowId)?.findLast((record) => record.committed);
  }

  all(): IterableIterator<RunRecord> {
    return this.byRunId.values();
  }
}
