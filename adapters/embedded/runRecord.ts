import type { WorkflowDefinition } from '../../core/definition/workflow.js';
import type { RunDescription, RunOutcome, SerializedFailure } from '../../core/domain/run.js';
import type { RunCallbackTarget } from '../../core/domain/callback.js';
import type { RunClosing } from './closings.js';
import { jsonCopy } from './json.js';
import type { RunHistory } from './history.js';
import type { Payload } from './payload.js';
import type { RunExecution } from './runExecution.js';

/** A run's description, ids and bookkeeping, about: what a run holds besides its history. */
const RECORD_BYTES = 1024;

/** Everything the engine keeps about one run. The description is published state; only the engine mutates it. */
export class RunRecord {
  /** A completed run's result. */
  output: Payload | undefined = undefined;
  failure: SerializedFailure | null = null;
  /** Set the moment a close is decided; the run still looks open until the close is published. */
  closing = false;
  /** The run this one continued as (continue-as-new). */
  continuedTo: RunRecord | undefined;
  execution!: RunExecution;
  /** When the continue-as-new chain this run belongs to began. */
  chainStartedAt: Date | undefined;
  /** Where the run's result is POSTed when it closes (StartCommand.callback). */
  callback: RunCallbackTarget | undefined;
  /**
   * The input of the chain's first run (continue-as-new, reset): readable as the chain's original input while any
   * run of the chain is kept, even once the first run itself is forgotten. This run's own input for a first run.
   */
  chainInput!: Payload;
  private closeListeners: Set<() => void> | undefined;

  constructor(
    readonly description: RunDescription,
    readonly definition: WorkflowDefinition,
    readonly input: Payload,
    readonly history: RunHistory,
    /** Insertion order, the tie-breaker of "newest first". */
    readonly sequence: number,
  ) {}

  get closed(): boolean {
    return this.description.status !== 'running';
  }

  snapshot(): RunDescription {
    return descriptionCopy(this.description);
  }

  /** Fresh JSON copies, as a Temporal client decodes them, so no caller can change what the engine keeps. */
  outcome(): RunOutcome {
    return { run: this.snapshot(), output: this.output?.value(), failure: jsonCopy(this.failure) as SerializedFailure | null };
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

  /** Makes the close visible, all at once: status, closedAt, result, closing event, then the waiters. */
  publishClose(closing: RunClosing, closedAt: Date): void {
    this.description.status = closing.status;
    this.description.closedAt = closedAt;
    this.output = closing.output;
    this.failure = closing.failure;
    this.history.append(closing.event.type, closing.event.attributes);
    const listeners = this.closeListeners;
    this.closeListeners = undefined;
    if (listeners) for (const listener of listeners) listener();
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
