import type { Clock } from '../../ports/clock.js';
import type { Logger } from '../../ports/logger.js';

/** How long a run's close waits for its remote trace upload before it goes on without it. */
export const DEFAULT_REMOTE_TRACE_WAIT_MS = 2_000;
/** Uploads that may still be running after their run closed; beyond it a trace is not uploaded at all. */
export const DEFAULT_MAX_PENDING_UPLOADS = 1_000;

export interface TraceUploadsOptions {
  clock: Clock;
  logger: Logger;
  /** @default DEFAULT_REMOTE_TRACE_WAIT_MS */
  waitMs?: number;
  /** @default DEFAULT_MAX_PENDING_UPLOADS */
  maxPending?: number;
}

/**
 * Keeps a slow or stalled object store from holding up the runs whose traces it stores. A run's close waits for its
 * remote upload at most `waitMs` (long enough for an ordinary upload and for the retries a refused connection
 * gets); then the run closes and the upload carries on in the background, bounded by the store's own deadlines,
 * with its outcome logged. Without this a stalled store (connections accepted, never answered) held every close for
 * the store's whole retry budget, minutes: run-and-wait calls timed out, and on Temporal the workflow task that
 * closes the run outlived its own timeout. `settle` lets a shutdown wait for the uploads still running.
 */
export class TraceUploads {
  private readonly pending = new Set<Promise<void>>();
  readonly waitMs: number;
  readonly maxPending: number;

  constructor(private readonly options: TraceUploadsOptions) {
    this.waitMs = options.waitMs ?? DEFAULT_REMOTE_TRACE_WAIT_MS;
    this.maxPending = options.maxPending ?? DEFAULT_MAX_PENDING_UPLOADS;
    if (!(this.waitMs >= 0)) throw new RangeError('TraceUploads: waitMs must be a number >= 0');
    if (!Number.isInteger(this.maxPending) || this.maxPending < 0) throw new RangeError('TraceUploads: maxPending must be an integer >= 0');
  }

  /** Uploads still running after their run closed. */
  get size(): number {
    return this.pending.size;
  }

  /** False when so many uploads are still running that another one should not be started. */
  hasRoom(): boolean {
    return this.pending.size < this.maxPending;
  }

  /**
   * Resolves when `upload` settles or after `waitMs`, whichever is first; in the second case `onLate` is called and
   * the upload is kept track of until it settles. `upload` must not reject.
   */
  async bound(upload: Promise<void>, onLate: () => void): Promise<void> {
    let cancel = (): void => {};
    const late = await Promise.race([
      upload.then(() => false),
      new Promise<boolean>((resolve) => {
        cancel = this.options.clock.setTimer(this.waitMs, () => resolve(true));
      }),
    ]);
    cancel();
    if (!late) return;
    onLate();
    this.pending.add(upload);
    void upload.finally(() => this.pending.delete(upload));
  }

  /** Waits until every upload still running has settled, at most `timeoutMs`; returns how many were left running. */
  async settle(timeoutMs: number): Promise<number> {
    if (this.pending.size === 0) return 0;
    let cancel = (): void => {};
    await Promise.race([
      Promise.all([...this.pending]),
      new Promise<void>((resolve) => {
        cancel = this.options.clock.setTimer(timeoutMs, resolve);
      }),
    ]);
    cancel();
    if (this.pending.size > 0) {
      this.options.logger.warn('trace uploads still running at shutdown are abandoned', { uploads: this.pending.size });
    }
    return this.pending.size;
  }
}
