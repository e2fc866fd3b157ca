import { checkAwaitTimeout } from '../../core/domain/requestBounds.js';
import type { RunOutcome } from '../../core/domain/run.js';
import type { AwaitOptions } from '../../ports/engine.js';
import type { RunRecord } from './runRecord.js';
import type { TimerRegistry } from './timers.js';

/**
 * Waits for the end of the continue-as-new chain that `start` belongs to (or for `start` alone), by close listeners and one timer (no
 * polling). Resolves undefined on timeout or when the engine shuts down; rejects with the abort reason.
 */
export function awaitChainOutcome(
  start: RunRecord,
  timers: TimerRegistry,
  { timeoutMs, signal, followChain = true }: AwaitOptions,
  shutdowns: Set<() => void>,
): Promise<RunOutcome | undefined> {
  if (signal?.aborted) return Promise.reject(abortReason(signal));
  const finalRun = followChain ? lastClosed(start) : start.closed ? start : undefined;
  if (finalRun) return Promise.resolve(finalRun.outcome());
  // The use cases check it (awaitRun.ts); asserted again because the timer below would take any number.
  try {
    checkAwaitTimeout(timeoutMs);
  } catch (error) {
    return Promise.reject(error);
  }
  return new Promise((resolve, reject) => {
    let current = start;
    let done = false;
    let unsubscribe = (): void => {};
    let cancelTimer = (): void => {};
    const settle = (finish: () => void): void => {
      if (done) return;
      done = true;
      unsubscribe();
      cancelTimer();
      signal?.removeEventListener('abort', onAbort);
      shutdowns.delete(onGiveUp);
      finish();
    };
    const onAbort = (): void => settle(() => reject(abortReason(signal)));
    const onGiveUp = (): void => settle(() => resolve(undefined));
    const follow = (): void => {
      current = current.current();
      while (followChain && current.closed && current.continuedTo) current = current.continuedTo.current();
      if (current.closed) settle(() => resolve(current.outcome()));
      else unsubscribe = current.onClosed(follow);
    };
    if (Number.isFinite(timeoutMs)) cancelTimer = timers.set(timeoutMs, onGiveUp);
    signal?.addEventListener('abort', onAbort, { once: true });
    shutdowns.add(onGiveUp);
    follow();
  });
}

function lastClosed(start: RunRecord): RunRecord | undefined {
  let current = start.current();
  while (current.closed && current.continuedTo) current = current.continuedTo.current();
  return current.closed ? current : undefined;
}

function abortReason(signal: AbortSignal | undefined): unknown {
  return signal?.reason ?? new DOMException('The operation was aborted', 'AbortError');
}
