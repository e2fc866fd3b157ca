import type { TraceLogView } from '../api/views.js';
import { TraceNotFoundError, WorkflowNotCompletedError } from '../domain/errors.js';
import type { PinnedRunRef } from '../domain/run.js';
import { traceKeyOf } from '../trace/traceKey.js';
import type { CoreDeps } from './deps.js';

/** A closed run's trace: inline from the remote store when it is there, else the local file (with its data). */
export async function fetchTrace(deps: Pick<CoreDeps, 'engine' | 'traces'>, ref: PinnedRunRef): Promise<TraceLogView> {
  const run = await deps.engine.describe(ref);
  if (run.status === 'running') {
    throw new WorkflowNotCompletedError(`Run ${run.runId} is still running; its trace is written when it closes`, {
      workflowId: run.workflowId,
      runId: run.runId,
    });
  }
  const key = traceKeyOf(run);
  const { remote, local } = deps.traces;
  if (remote) {
    const location = await remote.locate(key);
    const data = location ? await remote.read(location) : undefined;
    if (data) return { source: 'remote', runId: run.runId, data };
  }
  if (local) {
    const localPath = await local.locate(key);
    if (localPath) {
      const data = await local.read(localPath);
      return { source: 'local', runId: run.runId, localPath, ...(data ? { data } : {}) };
    }
  }
  throw new TraceNotFoundError(`No trace was recorded for run ${run.runId}`, { workflowId: run.workflowId, runId: run.runId });
}
