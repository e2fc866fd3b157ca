import type { Clock } from '../../ports/clock.js';

// setTimeout overflows above 2^31-1 ms and then fires at once; longer delays are chained instead.
const MAX_TIMEOUT_MS = 2_147_483_647;

/** The real clock. Timers are unref'd so a pending timer never keeps the process alive on its own. */
export const systemClock: Clock = Object.freeze({
  now: () => Date.now(),
  setTimer(ms: number, callback: () => void): () => void {
    let handle: NodeJS.Timeout | undefined;
    const schedule = (remaining: number): void => {
      const step = Math.min(Math.max(0, remaining), MAX_TIMEOUT_MS);
      handle = setTimeout(() => (remaining > MAX_TIMEOUT_MS ? schedule(remaining - MAX_TIMEOUT_MS) : callback()), step);
      handle.unref();
    };
    // Infinity keeps chaining, i.e. never fires.
    schedule(Number.isNaN(ms) ? 0 : ms);
    return () => clearTimeout(handle);
  },
});
