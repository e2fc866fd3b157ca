import type { RunCallbackTarget } from '../../core/domain/callback.js';
import type { PinnedRunRef } from '../../core/domain/run.js';
import { deliverRunCallback, type CallbackDeps } from '../../core/useCases/runCallback.js';
import type { CallbackSender } from '../../ports/callbackSender.js';

/**
 * The embedded engine's run callbacks, delivered from this process (MemoryEngineOptions.onRunCallback): its runs live
 * no longer than the process, and neither do their deliveries. close() ends the retries still waiting.
 */
export class CallbackDeliveries {
  private readonly stopping = new AbortController();

  /** `deps` is read at the first delivery: the engine it names is built with this object's `start` as its hook. */
  constructor(private readonly deps: () => CallbackDeps & { sender: CallbackSender }) {}

  start(run: PinnedRunRef, target: RunCallbackTarget): void {
    if (this.stopping.signal.aborted) return;
    void deliverRunCallback(this.deps(), run, target, this.stopping.signal);
  }

  /** Stops retrying; an attempt already on the wire ends by itself (its request deadline). */
  close(): void {
    this.stopping.abort();
  }
}
