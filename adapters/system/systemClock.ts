import type { Clock } from '../../ports/clock.js';

// setTimeout overflows above 2^31-1 ms and then fires at once; longer delays are chained instead.
const MAX_TIMEOUT_MS = 2_147_483_647;

/** The real clock. Timers are unref'd so a pending timer never keeps the process alive on its own. */
export const systemClock: Clock = realClock({ keepAlive: false });

/**
 * The real clock for the time limit of someone's wait (the embedded engine's awaitOutcome): its timers keep the process
 * alive, as the wait they end does (a script awaiting a result must not exit before the answer or the time-out).
 */
export const waitClock: Clock = realClock({ keepAlive: true });

function realClock({ keepAlive }: { keepAlive: boolean }): Clock {
  return Object.freeze({
    now: () => Date.now(),
    setTimer(ms: number, callback: () => void): () => void {
      let handle: NodeJS.Timeout | undefined;
      const schedule = (remaining: number): void => {
        const step = Math.min(Math.max(0, remaining), MAX_TIMEOUT_MS);
        handle = setTimeout(() => (remaining > MAX_TIMEOUT_MS ? schedule(remaining - MAX_TIMEOUT_MS) : callback()), step);
        if (!keepAlive) handle.unref();
      };
      // Infinity keeps chaining, i.e. never fires.
      schedule(Number.isNaN(ms) ? 0 : ms);
      return () => clearTimeout(handle);
    },
  });
}
