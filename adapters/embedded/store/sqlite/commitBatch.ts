import type { PinnedRunRef } from '../../../../core/domain/run.js';
import type { CommandRecord } from '../../commandLog.js';
import type { RunRecord } from '../../runRecord.js';
import type { ControlKeyRecord } from '../engineStore.js';

/**
 * What changed in one turn of the event loop, to be committed. It is written in parts of one transaction each, a
 * part per turn, so a turn in which hundreds of runs moved does not hold the loop for the whole write (a request,
 * GET /health among them, waits for the turn to end). Runs that change together stay in one part: a run and the run
 * it made (continue-as-new, a reset's new run, a child), and a key with the run its request changed.
 * docs/architecture.md, The embedded engine's store.
 */
export class CommitBatch {
  readonly runs = new Map<RunRecord, Set<CommandRecord>>();
  readonly callbacksEnded: PinnedRunRef[] = [];
  readonly controlKeys: [string, ControlKeyRecord][] = [];
  /** Pairs of runs whose changes must be in one transaction. */
  private readonly links: [RunRecord, RunRecord][] = [];
  /** Who waits for a run's changes: resolved when the part holding them is committed. */
  private readonly waiters = new Map<RunRecord, Waiter>();
  /** Who waits for the whole batch (a change that names no run of it). */
  private all: Waiter | undefined;

  changed(record: RunRecord): void {
    if (!this.runs.has(record)) this.runs.set(record, new Set());
  }

  commandChanged(record: RunRecord, command: CommandRecord): void {
    const commands = this.runs.get(record);
    if (commands) commands.add(command);
    else this.runs.set(record, new Set([command]));
  }

  together(first: RunRecord, second: RunRecord): void {
    this.links.push([first, second]);
  }

  /** Resolves once the part holding the run's changes is committed; the whole batch when it holds none of them. */
  committed(record: RunRecord): Promise<void> {
    if (!this.runs.has(record)) return (this.all ??= waiter()).promise;
    let found = this.waiters.get(record);
    if (!found) this.waiters.set(record, (found = waiter()));
    return found.promise;
  }

  /** The runs in parts, in the order they first changed: each part whole, linked runs in the same one. */
  parts(): CommitPart[] {
    const root = new Map<RunRecord, RunRecord>();
    const find = (record: RunRecord): RunRecord => {
      let top = record;
      while (root.get(top) !== undefined && root.get(top) !== top) top = root.get(top)!;
      if (top !== record) root.set(record, top);
      return top;
    };
    for (const [first, second] of this.links) {
      if (!this.runs.has(first) || !this.runs.has(second)) continue;
      const a = find(first);
      const b = find(second);
      if (a !== b) root.set(b, a);
    }
    const byRoot = new Map<RunRecord, CommitPart>();
    const byRunId = new Map<string, CommitPart>();
    const parts: CommitPart[] = [];
    for (const record of this.runs.keys()) {
      const top = find(record);
      let part = byRoot.get(top);
      if (!part) {
        part = { runs: [], callbacksEnded: [], controlKeys: [] };
        byRoot.set(top, part);
        parts.push(part);
      }
      part.runs.push(record);
      byRunId.set(record.description.runId, part);
    }
    // A key or an ended callback goes with its run; one whose run did not change goes first.
    const first = (): CommitPart => parts[0] ?? (parts.push({ runs: [], callbacksEnded: [], controlKeys: [] }), parts[0]!);
    for (const entry of this.controlKeys) (byRunId.get(entry[1].answer.runId) ?? first()).controlKeys.push(entry);
    for (const run of this.callbacksEnded) (byRunId.get(run.runId) ?? first()).callbacksEnded.push(run);
    return parts;
  }

  /** The part's runs are committed: who waits for them goes on. */
  partCommitted(part: CommitPart): void {
    for (const record of part.runs) this.waiters.get(record)?.resolve();
  }

  /** Every part is committed. */
  allCommitted(): void {
    this.all?.resolve();
  }

  /** These parts could not be committed: who waits for their runs, or for the whole batch, hears why. */
  failed(parts: readonly CommitPart[], error: unknown): void {
    for (const part of parts) for (const record of part.runs) this.waiters.get(record)?.reject(error);
    this.all?.reject(error);
  }
}

/** A batch being committed, a part per turn. */
export interface Flushing {
  batch: CommitBatch;
  parts: CommitPart[];
  next: number;
  /** The runs of the parts not committed yet. */
  uncommitted: Set<RunRecord>;
}

/**
 * How long one part of a batch may write before it commits and lets the loop go round (a part holds at least one
 * group of runs that change together, however long that takes). Half a millisecond: the runs a part shows go on in
 * the same turn, so the part's size sets how long the turn holds a waiting request; 2 ms held `GET /health` past
 * 20 ms under a saturating load, and 0.5 ms kept the throughput targets (docs/performance.md, figure 11).
 */
export const PART_BUDGET_MS = 0.5;

export interface CommitPart {
  runs: RunRecord[];
  callbacksEnded: PinnedRunRef[];
  controlKeys: [string, ControlKeyRecord][];
}

interface Waiter {
  promise: Promise<void>;
  resolve(): void;
  reject(error: unknown): void;
}

function waiter(): Waiter {
  let resolve!: () => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<void>((ok, fail) => {
    resolve = ok;
    reject = fail;
  });
  // Nobody may be waiting for a part that failed: the engine handles the failure (EngineStore.onWriteFailed).
  promise.catch(() => {});
  return { promise, resolve, reject };
}
