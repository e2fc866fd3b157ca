import type { RunCallbackTarget } from '../../core/domain/callback.js';
import type { PinnedRunRef } from '../../core/domain/run.js';
import { callbackLogFields, deliverRunCallback, type CallbackDeps } from '../../core/useCases/runCallback.js';
import type { CallbackSender } from '../../ports/callbackSender.js';

/** Deliveries in progress at once, by default: each holds its body until it ends (up to CALLBACK_RETRY_MAX_SECONDS). */
export const DEFAULT_MAX_PENDING_CALLBACKS = 10_000;

/**
 * The embedded engine's run callbacks, delivered from this process (EmbeddedEngineOptions.onRunCallback). close() ends
 * the retries still waiting; on the durable store the callbacks whose delivery had not ended stay in its outbox and
 * the next engine on it delivers them again (docs/callbacks.md). At most `maxPending` deliveries are in progress: a
 * receiver that is down for long must not make the process hold every result of the meantime; a run closing beyond
 * that is not delivered, and the log says so.
 */
export class CallbackDeliveries {
  private readonly stopping = new AbortController();
  private pending = 0;

  /** `deps` is read at the first delivery: the engine it names is built with this object's `start` as its hook. */
  constructor(
    private readonly deps: () => CallbackDeps & { sender: CallbackSender },
    private readonly maxPending: number = DEFAULT_MAX_PENDING_CALLBACKS,
  ) {}

  /** Settles when the delivery ends, however it ends (never rejects). */
  start(run: PinnedRunRef, target: RunCallbackTarget): Promise<void> {
    if (this.stopping.signal.aborted) return Promise.resolve();
    const deps = this.deps();
    if (this.pending >= this.maxPending) {
      deps.logger.error('run callback not sent: too many deliveries in progress', { ...callbackLogFields(run, target.url), inProgress: this.pending });
      return Promise.resolve();
    }
    this.pending += 1;
    return deliverRunCallback(deps, run, target, this.stopping.signal).then(
      () => {
        this.pending -= 1;
      },
      () => {
        this.pending -= 1;
      },
    );
  }

  /** Stops retrying; an attempt already on the wire ends by itself (its request deadline). */
  close(): void {
    this.stopping.abort();
  }
}
