import type { WorkflowDefinition } from '../../core/definition/workflow.js';
import type { HistoryEvent } from '../../core/domain/history.js';
import type { RunDescription, RunOutcome, SerializedFailure } from '../../core/domain/run.js';
import type { RunCallbackTarget } from '../../core/domain/callback.js';
import type { RunStreamItem } from '../../ports/engine.js';
import type { RunClosing } from './closings.js';
import { jsonCopy } from './json.js';
import type { RunHistory } from './runHistory.js';
import type { Payload } from './payload.js';
import type { RunExecution } from './runExecution.js';
import type { RunState, StoredRun } from './store/engineStore.js';

/** A run's description, ids and bookkeeping, about: what a run holds besides its history. */
const RECORD_BYTES = 1024;

/** A close decided and written, not yet shown: what the store writes and publishClose then shows. */
export interface DecidedClose {
  closing: RunClosing;
  closedAt: Date;
}

/** Everything the engine keeps about one live run. The description is published state; only the engine mutates it. */
export class RunRecord implements StoredRun {
  /** A completed run's result. */
  output: Payload | undefined = undefined;
  failure: SerializedFailure | null = null;
  /** Set the moment a close is decided; the run still looks open until the close is published. */
  closing = false;
  /** The close decided, once it is (written at the next commit, then published). */
  decided: DecidedClose | undefined;
  /** The run this one continued as (continue-as-new). */
  continuedTo: RunRecord | undefined;
  execution!: RunExecution;
  /** When the continue-as-new chain this run belongs to began. */
  chainStartedAt: Date;
  /** Where the run's result is POSTed when it closes (StartCommand.callback). */
  callback: RunCallbackTarget | undefined;
  /**
   * The input of the chain's first run (continue-as-new, reset): readable as the chain's original input while any
   * run of the chain is kept, even once the first run itself is forgotten. This run's own input for a first run.
   */
  chainInput: Payload;
  /**
   * Whether the store has committed the run's start: until then no reader finds it (a start answers only after it).
   * Restored runs were committed before the restart.
   */
  committed = false;
  private closeListeners: Set<() => void> | undefined;

  constructor(
    readonly description: RunDescription,
    /** The code the run executes; undefined while a restored run waits for a worker that serves its workflow. */
    public definition: WorkflowDefinition | undefined,
    readonly input: Payload,
    readonly history: RunHistory,
    /** Insertion order, the tie-breaker of "newest first". */
    readonly sequence: number,
  ) {
    this.chainInput = input;
    this.chainStartedAt = description.startedAt;
  }

  get closed(): boolean {
    return this.description.status !== 'running';
  }

  get continuedToRunId(): string | undefined {
    return this.continuedTo?.description.runId;
  }

  snapshot(): RunDescription {
    return descriptionCopy(this.description);
  }

  /** Fresh JSON copies, as a Temporal client decodes them, so no caller can change what the engine keeps. */
  outcome(): RunOutcome {
    return { run: this.snapshot(), output: this.output?.value(), failure: jsonCopy(this.failure) as SerializedFailure | null };
  }

  inputValue(): unknown {
    return this.input.value();
  }

  chainInputValue(): unknown {
    return this.chainInput.value();
  }

  historyPage(offset: number, size: number, maxBytes: number): { events: HistoryEvent[]; visibleCount: number } {
    return { events: this.history.page(offset, size, maxBytes), visibleCount: this.history.visibleCount };
  }

  follow(afterEventId: number, signal: AbortSignal, stopped: () => boolean): AsyncIterableIterator<RunStreamItem> {
    return this.history.follow(afterEventId, signal, stopped);
  }

  /**
   * What keeping the run costs, in bytes, about: its history with each payload once (the input, the result, step
   * inputs and outputs and replies all live there; the trace and the command log share the same payloads), its
   * progress events, its chain's input and its bookkeeping. Final once the run is closed.
   */
  get retainedBytes(): number {
    // The chain's input is counted with every run that keeps it: over, never under, what they hold together.
    const chainInput = this.chainInput === this.input ? 0 : this.chainInput.bytes;
    return RECORD_BYTES + this.history.retainedBytes + chainInput;
  }

  /** Calls `listener` once when the close is published. Returns the function that unsubscribes it. */
  onClosed(listener: () => void): () => void {
    (this.closeListeners ??= new Set()).add(listener);
    return () => this.closeListeners?.delete(listener);
  }

  /** The copy restored from the store that replaced this record (a failed write): waiters follow it. */
  replacedBy: RunRecord | undefined;

  /** The run is replaced by a copy restored from the store (a failed write): its waiters wait on the copy. */
  moveListenersTo(other: RunRecord): void {
    this.replacedBy = other;
    for (const listener of this.closeListeners ?? []) other.onClosed(listener);
    this.closeListeners = undefined;
  }

  /** This record, or the copy that replaced it last. */
  current(): RunRecord {
    let record: RunRecord = this;
    while (record.replacedBy) record = record.replacedBy;
    return record;
  }

  /** Decides the close: the closing event is appended (readers see it once committed) and the rest kept for publishClose. */
  decideClose(closing: RunClosing, closedAt: Date): void {
    this.decided = { closing, closedAt };
    // At the close time the status answers: the close's own work (children, the trace written) comes in between.
    this.history.append(closing.event.type, closing.event.attributes, undefined, closedAt);
  }

  /** Makes the decided close visible, all at once: status, closedAt, result, then the waiters. */
  publishClose(): void {
    const decided = this.decided;
    if (!decided) throw new Error(`run ${this.description.runId}: publishClose before decideClose`);
    this.description.status = decided.closing.status;
    this.description.closedAt = decided.closedAt;
    this.output = decided.closing.output;
    this.failure = decided.closing.failure;
    const listeners = this.closeListeners;
    this.closeListeners = undefined;
    if (listeners) for (const listener of listeners) listener();
  }

  /** The run as the store would hold it: a reset's source when the run is live (shares the engine's payloads). */
  state(): RunState {
    return {
      description: this.snapshot(),
      sequence: this.sequence,
      input: this.input,
      chainInput: this.chainInput,
      chainStartedAt: this.chainStartedAt,
      callback: this.callback,
      events: [...this.history.events],
      commands: [...this.execution.commands.records],
    };
  }
}

/** A copy of a run's description that no caller can use to change the engine's own. */
export function descriptionCopy(run: RunDescription): RunDescription {
  const { parent, root, idempotency, rerunOf } = run;
  return {
    ...run,
    ...(parent ? { parent: { ...parent } } : {}),
    ...(root ? { root: { ...root } } : {}),
    ...(idempotency ? { idempotency: { ...idempotency } } : {}),
    ...(rerunOf ? { rerunOf: { ...rerunOf } } : {}),
  };
}
