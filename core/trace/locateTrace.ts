import type { TraceDestinations, TraceKey } from '../domain/trace.js';
import type { TraceStore, TraceStores } from '../../ports/traceStore.js';
import type { Logger } from '../../ports/logger.js';

async function locateIn(store: TraceStore | undefined, key: TraceKey, logger: Logger): Promise<string | undefined> {
  if (!store) return undefined;
  try {
    return await store.locate(key);
  } catch (error) {
    // A store that cannot answer only means the destination is unavailable for this response.
    logger.warn('trace store lookup failed', { store: store.kind, workflowId: key.workflowId, runId: key.runId, error: String(error) });
    return undefined;
  }
}

/** The destinations that exist right now; unavailable ones are absent (never null). */
export async function locateTrace(traces: TraceStores, key: TraceKey, logger: Logger): Promise<TraceDestinations> {
  const [local, remote] = await Promise.all([locateIn(traces.local, key, logger), locateIn(traces.remote, key, logger)]);
  return { ...(local ? { local } : {}), ...(remote ? { remote } : {}) };
}
