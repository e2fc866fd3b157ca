import { checkAwaitTimeout } from '../../../core/domain/requestBounds.js';
import type { PinnedRunRef, RunDescription, RunOutcome } from '../../../core/domain/run.js';
import type { Clock } from '../../../ports/clock.js';
import type { AwaitOptions } from '../../../ports/engine.js';
import type { TemporalCalls } from './calls.js';
import { LONG_POLL_TIMEOUT_MS } from './followHistory.js';
import { fetchHistoryPage, firstHistoryEvent } from './historyReader.js';
import { continuedRunIdOf, outcomeOf, timeOutLimitOf } from './outcome.js';
import { reportedCloseOutcome } from './reportedClose.js';

export interface AwaitDeps {
  calls: TemporalCalls;
  clock: Clock;
  describe(run: PinnedRunRef, signal: AbortSignal): Promise<RunDescription>;
}

/**
 * Waits for the end of the continue-as-new chain `run` belongs to by long-polling each run's closing event
 * (`waitNewEvent` with the CLOSE_EVENT filter), never by polling in a loop. The timeout is a Clock timer that cancels
 * the request in flight. Resolves undefined on timeout or when the engine closes; rejects with the abort reason.
 * The closed run is described for its outcome, unless the closing event reports all that adds (reportedClose.ts).
 */
export async function awaitChainOutcome(deps: AwaitDeps, run: PinnedRunRef, { timeoutMs, signal, followChain = true, startedRun }: AwaitOptions): Promise<RunOutcome | undefined> {
  // The use cases check it (awaitRun.ts); asserted again because the timer below would take any number.
  checkAwaitTimeout(timeoutMs);
  if (signal?.aborted) throw signal.reason;
  const stop = new AbortController();
  const onAbort = (): void => stop.abort(signal?.reason);
  signal?.addEventListener('abort', onAbort, { once: true });
  let timedOut = false;
  const cancelTimer = Number.isFinite(timeoutMs)
    ? deps.clock.setTimer(timeoutMs, () => {
        timedOut = true;
        stop.abort();
      })
    : () => {};
  try {
    let current = run;
    let nextPageToken: Uint8Array | undefined;
    for (;;) {
      const page = await fetchHistoryPage(
        deps.calls,
        current,
        { closeEventOnly: true, waitNewEvent: true, nextPageToken },
        { signal: stop.signal, timeoutMs: LONG_POLL_TIMEOUT_MS },
      );
      const close = page.events[0];
      if (!close) {
        nextPageToken = page.nextPageToken;
        continue;
      }
      const nextRunId = followChain ? continuedRunIdOf(close) : undefined;
      if (nextRunId) {
        current = { workflowId: current.workflowId, runId: nextRunId };
        nextPageToken = undefined;
        continue;
      }
      const reported = startedRun?.runId === current.runId ? reportedCloseOutcome(startedRun, close) : undefined;
      if (reported) return reported;
      const ref = current;
      const runTimeoutMs = await timeOutLimitOf(close, () => firstHistoryEvent(deps.calls, ref, { skipPayloads: true }));
      return outcomeOf(await deps.describe(current, stop.signal), close, runTimeoutMs);
    }
  } catch (error) {
    if (timedOut || deps.calls.closed) return undefined;
    throw error;
  } finally {
    cancelTimer();
    signal?.removeEventListener('abort', onAbort);
  }
}
