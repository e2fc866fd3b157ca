import type { RunCallbackTarget } from '../../../core/domain/callback.js';
import { EngineUnavailableError } from '../../../core/domain/errors.js';
import type { HistoryEvent } from '../../../core/domain/history.js';
import type { PinnedRunRef, RunDescription, RunOutcome, RunRef, SerializedFailure } from '../../../core/domain/run.js';
import type { RunStatus } from '../../../core/domain/status.js';
import type { RunStreamItem } from '../../../ports/engine.js';
import type { CommandRecord } from '../commandLog.js';
import type { Payload } from '../payload.js';
import type { RunRecord } from '../runRecord.js';
import type { StoredSchedule } from '../schedules/storedSchedule.js';

/**
 * One run as readers see it, wherever it is kept: a live run in memory (RunRecord), or a closed one the store holds
 * (a row of the durable store, a run the memory store still keeps, a keyed start's record).
 */
export interface StoredRun {
  readonly description: Readonly<RunDescription>;
  readonly closed: boolean;
  /** continue-as-new: the run this one continued as. */
  readonly continuedToRunId: string | undefined;
  /** A copy no caller can use to change what the engine keeps. */
  snapshot(): RunDescription;
  /** A closed run's outcome (fresh JSON copies). */
  outcome(): RunOutcome;
  /** The input the run was started with; WorkflowNotFoundError when the store no longer has it. */
  inputValue(): unknown;
  /** The input of the chain's first run (continue-as-new, reset). */
  chainInputValue(): unknown;
  /**
   * Events from `offset` of the history readers may see, at most `size` and about `maxBytes` of them (at least one),
   * and how many there are.
   */
  historyPage(offset: number, size: number, maxBytes: number): { events: HistoryEvent[]; visibleCount: number };
  /**
   * Every event after `afterEventId`, then new ones as they happen; ends after the closing event. A run read from a
   * store reads about `readAheadBytes` of events at a time: what a follower whose client does not read holds.
   */
  follow(afterEventId: number, signal: AbortSignal, stopped: () => boolean, readAheadBytes: number): AsyncIterableIterator<RunStreamItem>;
}

/**
 * Everything a run is, as stored: what a restart resumes it from and what a reset replays (RunLifecycle.restore in
 * runLifecycle.ts, reset.ts).
 * Payload attributes of events are Payloads, as the engine keeps them.
 */
export interface RunState {
  description: RunDescription;
  sequence: number;
  input: Payload;
  chainInput: Payload;
  chainStartedAt: Date;
  callback: RunCallbackTarget | undefined;
  events: HistoryEvent[];
  /** In call order. */
  commands: CommandRecord[];
}

/** A run callback whose delivery had not ended (the outbox): delivered again after a restart. */
export interface PendingCallback {
  run: PinnedRunRef;
  target: RunCallbackTarget;
}

/** The filter and position of a runs list page (the page token holds the position). */
export interface RunsQuery {
  workflowName?: string;
  catalog?: string;
  status?: RunStatus;
  startedBy?: string;
  scheduleId?: string;
  limit: number;
  /** Only runs older than this position: start time, then insertion order. */
  after?: { startedAt: number; sequence: number };
}

/** A runs list page, newest first; `more` when older matching runs exist. */
export interface RunsPage {
  runs: { description: RunDescription; sequence: number }[];
  more: boolean;
}

/**
 * The Idempotency-Key of a feedback, terminate or reset the store keeps (docs/idempotency.md), with what the request
 * did: the run it reached (feedback, terminate) or made (reset).
 */
export interface ControlKeyRecord {
  fingerprint: string;
  requestedAt: Date;
  answer: PinnedRunRef;
}

/** A write the store could not make (disk full, I/O error): what needed it is not done, nothing before is lost. */
export class StoreWriteError extends Error {
  override name = 'StoreWriteError';
}

/** What a request whose store write failed answers: the engine is out of service (503), what needed it is not done. */
export function unwrittenAnswer(error: StoreWriteError): InstanceType<typeof EngineUnavailableError> {
  return new EngineUnavailableError(`The embedded engine could not write its store: ${error.message}`);
}

/**
 * Where the embedded engine keeps its runs: the boundary between the engine's live runs (in memory, running workflow
 * code) and what outlives them. Two implementations: the memory store (memoryStore.ts: closed runs kept up to a bound,
 * then forgotten) and the durable one (sqlite/: every run in SQLite, nothing acknowledged lost).
 *
 * Live runs tell the store what changed as it happens (`runChanged`, `commandChanged`); the store writes it all at its
 * next commit, many runs in one transaction. Nothing is shown to workflow code or to a reader before the commit that
 * holds it: `commit()` is what they wait on (docs/architecture.md, The embedded engine's store).
 */
export interface EngineStore {
  /** `memory` or `sqlite`. */
  readonly kind: 'memory' | 'sqlite';
  /** Whether a run outlives the process: readers then see only committed events (RunHistory). */
  readonly durable: boolean;
  /** The key page tokens are signed with: kept with the runs, so a token outlives a restart of a durable store. */
  readonly pageTokenKey: Buffer;
  /** The next insertion number (the tie-breaker of "newest first"). */
  nextSequence(): number;

  /** A new run: written, with what it holds, at the next commit. */
  runAdded(record: RunRecord): void;
  /** The run's history grew, or its close was decided: written at the next commit. */
  runChanged(record: RunRecord): void;
  /** One of the run's commands was called, progressed or completed. */
  commandChanged(record: RunRecord, command: CommandRecord): void;
  /**
   * The two runs' changes are committed in one transaction: a run and the run it made (continue-as-new, a reset's
   * new run, a child).
   */
  changedTogether(first: RunRecord, second: RunRecord): void;
  /**
   * Resolves once every change of the run reported so far is committed (with the runs changed together with it and
   * the keys of the requests that changed it), rejects with StoreWriteError when that commit failed; undefined when
   * there is nothing to wait for (the memory store keeps everything at once).
   */
  commit(record: RunRecord): Promise<void> | undefined;
  /** The close of a run is committed and published: the store keeps what readers need of it from now on. */
  runClosed(record: RunRecord): void;

  /** A run the engine does not hold live: by run id, or the latest of the workflow id. */
  lookup(ref: RunRef): StoredRun | undefined;
  /** The latest run of a chain that `firstRunId` began, when it is kept (the first run may be gone). */
  latestOfChain(workflowId: string, firstRunId: string): StoredRun | undefined;
  /** A page of runs, newest first. */
  listRuns(query: RunsQuery): RunsPage;
  /** Everything about one run (a reset's source). */
  loadState(ref: PinnedRunRef): RunState | undefined;
  /** The runs that were open when the store was last closed: the engine restores and resumes them (runLifecycle.ts). */
  openRuns(): RunState[];

  /**
   * The run a keyed start with `requestId` made, when it began the id's latest chain and the store still answers for
   * it (a retry of the start gets it back).
   */
  keyedStart(workflowId: string, requestId: string): RunDescription | undefined;
  /** Keyed starts (memory store): refuses a new key it has no room for. The durable store keeps keys with runs. */
  admitKey(workflowId: string): void;
  /** A chain began on this run (first run of a workflow id's chain). */
  chainStarted(record: RunRecord): void;
  /** A chain ended with this run (its last; not continued as new). */
  chainClosed(record: RunRecord): void;

  /**
   * Whether the store keeps the Idempotency-Keys of feedback, terminate and reset itself (the durable store: a retry
   * after a restart is recognised), or leaves them to the API process (WorkflowEngine.controlKeys).
   */
  readonly keepsControlKeys: boolean;
  /** A kept key's record, if it is kept and younger than `retentionMs`. */
  controlKey(key: string, retentionMs: number): ControlKeyRecord | undefined;
  /** Keeps a key with what its request did: written in the same commit as what it did. */
  keepControlKey(key: string, record: ControlKeyRecord): void;

  /** The callbacks of closed runs whose delivery had not ended. */
  pendingCallbacks(): PendingCallback[];
  /** A callback's delivery ended (delivered, refused or abandoned): it leaves the outbox at the next commit. */
  callbackEnded(run: PinnedRunRef): void;

  /** Every schedule kept (docs/schedules.md), read once when the engine starts. */
  loadSchedules(): StoredSchedule[];
  /**
   * Keeps the schedule as it is now, at once and on its own: a fire is recorded before the next one is acted on.
   * Throws StoreWriteError when the write fails.
   */
  saveSchedule(schedule: StoredSchedule): void;
  deleteSchedule(scheduleId: string): void;

  /** Whether the store takes a write now (a tiny one, committed on its own): true for a store that cannot fail. */
  probe(): boolean;
  /** Who hears of a commit that failed (the engine restores the runs it touched from the store). */
  onWriteFailed(handler: (records: readonly RunRecord[], error: unknown) => void): void;
  /** What the store holds now, for EmbeddedEngine.usage() and tests. */
  usage(): Record<string, number>;
  /** Writes what is left and releases the store. Safe to call twice. */
  close(): void;
}
