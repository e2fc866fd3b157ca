import type { Clock } from '../../ports/clock.js';

/**
 * Every timer the engine sets goes through here, so close() can cancel all of them at once and a cancelled
 * timer can never fire late, whatever the Clock implementation does.
 */
export class TimerRegistry {
  private readonly active = new Set<() => void>();
  private closed = false;

  constructor(private readonly clock: Clock) {}

  /** Calls `callback` after `ms`; returns the canceller (safe to call twice, or after the timer fired). */
  set(ms: number, callback: () => void): () => void {
    if (this.closed) return () => {};
    let cancelClockTimer: (() => void) | undefined;
    const cancel = (): void => {
      if (this.active.delete(cancel)) cancelClockTimer?.();
    };
    // Registered before asking the clock, in case a fake clock fires synchronously.
    this.active.add(cancel);
    cancelClockTimer = this.clock.setTimer(ms, () => {
      if (this.active.delete(cancel)) callback();
    });
    return cancel;
  }

  /** Cancels every pending timer and refuses new ones. */
  closeAll(): void {
    this.closed = true;
    for (const cancel of [...this.active]) cancel();
  }
}
