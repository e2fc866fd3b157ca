import type { RunDescription } from '../domain/run.js';
import type { TraceDestinations, TraceKey } from '../domain/trace.js';
import type { TraceStore, TraceStores } from '../../ports/traceStore.js';
import type { Logger } from '../../ports/logger.js';
import type { Clock } from '../../ports/clock.js';

/**
 * How long a result waits for a store to say where its trace is. The destinations are a detail of the answer: a
 * stalled object store must not hold up a result (it would otherwise cost the store's whole request deadline).
 */
export const TRACE_LOOKUP_WAIT_MS = 2_000;

async function locateIn(store: TraceStore | undefined, key: TraceKey, logger: Logger, clock: Clock | undefined): Promise<string | undefined> {
  if (!store) return undefined;
  let cancel = (): void => {};
  try {
    const lookup = store.locate(key);
    if (!clock) return await lookup;
    const timedOut = Symbol('timed out');
    const found = await Promise.race([
      lookup,
      new Promise<typeof timedOut>((resolve) => {
        cancel = clock.setTimer(TRACE_LOOKUP_WAIT_MS, () => resolve(timedOut));
      }),
    ]);
    if (found !== timedOut) return found;
    // The lookup goes on until the store's own deadline; its outcome no longer matters.
    lookup.catch(() => {});
    logger.warn('trace store lookup timed out', { store: store.kind, workflowId: key.workflowId, runId: key.runId, waitedMs: TRACE_LOOKUP_WAIT_MS });
    return undefined;
  } catch (error) {
    // A store that cannot answer only means the destination is unavailable for this response.
    logger.warn('trace store lookup failed', { store: store.kind, workflowId: key.workflowId, runId: key.runId, error: String(error) });
    return undefined;
  } finally {
    cancel();
  }
}

/**
 * The destinations of a closed run's trace that exist right now; unavailable ones are absent (never null). With a
 * clock, a store that has not answered within TRACE_LOOKUP_WAIT_MS counts as unavailable. The local one is this
 * server's file, else the one the run's worker reports writing (a worker on another host: the path on its host).
 */
export async function locateTrace(
  traces: TraceStores,
  run: TraceKey & Pick<RunDescription, 'localTracePath'>,
  logger: Logger,
  clock?: Clock,
): Promise<TraceDestinations> {
  const key: TraceKey = { workflowName: run.workflowName, workflowId: run.workflowId, runId: run.runId, startedAt: run.startedAt };
  const [ownLocal, remote] = await Promise.all([locateIn(traces.local, key, logger, clock), locateIn(traces.remote, key, logger, clock)]);
  const local = ownLocal ?? reportedElsewhere(run, traces.local);
  return { ...(local ? { local } : {}), ...(remote ? { remote } : {}) };
}

/**
 * The trace file the run's worker reports writing, when it is outside this server's own TRACE_DIR (another host's):
 * named as reported, since this server cannot look. Inside its own directory, its own store's answer stands.
 */
export function reportedElsewhere(run: Pick<RunDescription, 'localTracePath'>, local: TraceStore | undefined): string | undefined {
  const reported = run.localTracePath;
  return reported && !local?.owns?.(reported) ? reported : undefined;
}
