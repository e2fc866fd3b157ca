import { randomBytes } from 'node:crypto';
import { runNotFound } from '../../../core/domain/errors.js';
import type { HistoryEvent } from '../../../core/domain/history.js';
import type { PinnedRunRef, RunDescription, RunOutcome, RunRef } from '../../../core/domain/run.js';
import type { Clock } from '../../../ports/clock.js';
import type { RunStreamItem } from '../../../ports/engine.js';
import type { RunRecord } from '../runRecord.js';
import type { EngineStore, PendingCallback, RunState, RunsPage, RunsQuery, StoredRun } from './engineStore.js';
import { KeyRecords } from './keyRecords.js';
import { listMemoryRuns } from './memoryListRuns.js';
import { decodeSchedule, encodeSchedule, type StoredSchedule } from '../schedules/storedSchedule.js';
import { MemoryRunIndex } from './memoryRunIndex.js';

export interface MemoryStoreOptions {
  clock: Clock;
  /** Closed runs kept; the oldest closed ones are forgotten beyond this (MEMORY_MAX_CLOSED_RUNS). */
  maxClosedRuns: number;
  /** Bytes the closed runs may keep together (MEMORY_MAX_CLOSED_BYTES). */
  maxClosedBytes: number;
  /** How long a keyed start's answer is kept once final (IDEMPOTENCY_RETENTION_SECONDS). */
  idempotencyRetentionMs: number;
  /** Bytes of keyed starts' records (MEMORY_MAX_IDEMPOTENCY_BYTES). */
  maxIdempotencyBytes: number;
}

/**
 * The in-memory store (ENGINE=memory, the testing kit, unit tests): runs live and end with the process. It keeps the
 * live records themselves, so there is nothing to write and nothing to wait for (`commit()` is undefined); closed runs
 * are kept up to a count and a byte bound, then forgotten, and a keyed start's record outlives its run until its key
 * expires (keyRecords.ts).
 */
export class MemoryStore implements EngineStore {
  readonly kind = 'memory';
  readonly durable = false;
  /** Lives as long as this store: a page token is good while the process runs. */
  readonly pageTokenKey = randomBytes(32);
  private readonly index: MemoryRunIndex;
  private readonly keys: KeyRecords;
  /** Kept as text, as the durable store keeps them: what the engine holds is never the stored copy. */
  private readonly schedules = new Map<string, string>();

  constructor(options: MemoryStoreOptions) {
    this.index = new MemoryRunIndex(options.maxClosedRuns, options.maxClosedBytes);
    this.keys = new KeyRecords(options.clock, options.idempotencyRetentionMs, options.maxIdempotencyBytes);
  }

  nextSequence(): number {
    return this.index.nextSequence();
  }

  runAdded(record: RunRecord): void {
    record.committed = true;
    this.index.add(record);
  }

  runChanged(): void {}

  commandChanged(): void {}

  changedTogether(): void {}

  commit(): undefined {
    return undefined;
  }

  runClosed(record: RunRecord): void {
    this.index.markClosed(record);
  }

  lookup(ref: RunRef): StoredRun | undefined {
    const record = this.index.lookup(ref);
    if (record) return record;
    const kept = this.keys.describe(ref);
    return kept ? new KeyRecordView(kept, this.keys, ref) : undefined;
  }

  latestOfChain(workflowId: string, firstRunId: string): StoredRun | undefined {
    return this.index.runsOf(workflowId).findLast((kept) => kept.description.firstRunId === firstRunId);
  }

  listRuns(query: RunsQuery): RunsPage {
    return listMemoryRuns(this.index.all(), query);
  }

  loadState(ref: PinnedRunRef): RunState | undefined {
    return this.index.lookup(ref)?.state();
  }

  /** Nothing outlives the process. */
  openRuns(): RunState[] {
    return [];
  }

  keyedStart(workflowId: string, requestId: string): RunDescription | undefined {
    const latest = this.index.latest(workflowId);
    const started = latest ? latest.snapshot() : this.keys.keyedRun(workflowId);
    return started?.idempotency?.requestId === requestId ? started : undefined;
  }

  /** Nothing is written: nothing can fail. */
  onWriteFailed(): void {}

  probe(): boolean {
    return true;
  }

  admitKey(workflowId: string): void {
    this.keys.admit(workflowId);
  }

  chainStarted(record: RunRecord): void {
    this.keys.chainStarted(record);
  }

  chainClosed(record: RunRecord): void {
    this.keys.chainClosed(record);
  }

  /** The API process answers keyed control requests itself (core/idempotency/localAnswers.ts). */
  readonly keepsControlKeys = false;

  controlKey(): undefined {
    return undefined;
  }

  keepControlKey(): void {}

  pendingCallbacks(): PendingCallback[] {
    return [];
  }

  callbackEnded(): void {}

  usage(): Record<string, number> {
    return { ...this.index.usage(), ...this.keys.usage };
  }

  loadSchedules(): StoredSchedule[] {
    return [...this.schedules.values()].map(decodeSchedule);
  }

  saveSchedule(schedule: StoredSchedule): void {
    this.schedules.set(schedule.definition.scheduleId, encodeSchedule(schedule));
  }

  deleteSchedule(scheduleId: string): void {
    this.schedules.delete(scheduleId);
  }

  close(): void {}
}

/**
 * A run the memory store forgot, as its keyed start's record still tells it: its description and outcome, nothing
 * more (a retry of the start finds its run, not a free id).
 */
class KeyRecordView implements StoredRun {
  constructor(
    readonly description: RunDescription,
    private readonly keys: KeyRecords,
    private readonly ref: RunRef,
  ) {}

  get closed(): boolean {
    return this.description.status !== 'running';
  }

  /** The keyed first run continued as new: its chain's last run, which the record also keeps. */
  get continuedToRunId(): string | undefined {
    if (this.description.status !== 'continued_as_new') return undefined;
    const end = this.keys.describe({ workflowId: this.description.workflowId });
    return end && end.runId !== this.description.runId ? end.runId : undefined;
  }

  snapshot(): RunDescription {
    return { ...this.description };
  }

  outcome(): RunOutcome {
    return this.keys.outcome(this.ref) ?? { run: this.snapshot(), output: undefined, failure: null };
  }

  inputValue(): unknown {
    return this.forgotten();
  }

  chainInputValue(): unknown {
    return this.forgotten();
  }

  historyPage(): { events: HistoryEvent[]; visibleCount: number } {
    return this.forgotten();
  }

  follow(): AsyncIterableIterator<RunStreamItem> {
    return this.forgotten();
  }

  private forgotten(): never {
    const { workflowId, runId } = this.description;
    throw runNotFound(workflowId, runId);
  }
}
