import type { FsTraceStore } from '../../fs/index.js';
import { TRACE_LOCATION_ACTIVITY, type TraceLocation, type TraceLocationRequest } from '../protocol.js';
import type { ActivityFunction } from './activities.js';
import type { TraceCollector } from './traceCollector.js';

/**
 * The local activity a closing run asks where its trace file goes (sandbox/traceLocation.ts): this worker's TRACE_DIR,
 * the file named by the run's start as the API will compute it. The trace sink then writes exactly there.
 */
export function traceLocationActivities(deps: { store: FsTraceStore | undefined; traces: TraceCollector }): Record<string, ActivityFunction> {
  const locate = async (request: TraceLocationRequest): Promise<TraceLocation> => {
    // A worker given a trace store of its own (no files): the run closes without a path in its memo.
    if (!deps.store) throw new Error('this worker keeps no local trace files');
    const startedAt = await deps.traces.startTimeOf(request);
    const localPath = deps.store.pathOf({ workflowName: request.workflowName, workflowId: request.workflowId, runId: request.runId, startedAt });
    return { localPath, startedAt: startedAt.toISOString() };
  };
  return { [TRACE_LOCATION_ACTIVITY]: locate as ActivityFunction };
}
