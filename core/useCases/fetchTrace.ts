import type { TraceLogView } from '../api/views.js';
import { TraceNotFoundError, WorkflowNotCompletedError } from '../domain/errors.js';
import type { PinnedRunRef, RunDescription } from '../domain/run.js';
import type { TraceRecord } from '../domain/trace.js';
import { traceKeyOf } from '../trace/traceKey.js';
import { CorruptTraceError } from '../trace/parseTrace.js';
import { reportedElsewhere } from '../trace/locateTrace.js';
import type { TraceStore } from '../../ports/traceStore.js';
import type { Logger } from '../../ports/logger.js';
import type { CoreDeps } from './deps.js';

/**
 * A closed run's trace: inline from the remote store when it is there, else the local file (with its data when this
 * server can read it): this server's own, or the one the run's worker reports writing on its host. A stored trace
 * that cannot be loaded (corrupt, too large) is answered like an unreadable file: the readable local copy if there
 * is one, else where it is, without data (docs/api.md, Trace log).
 */
export async function fetchTrace(deps: Pick<CoreDeps, 'engine' | 'traces' | 'logger'>, ref: PinnedRunRef): Promise<TraceLogView> {
  const run = await deps.engine.describe(ref);
  if (run.status === 'running') {
    throw new WorkflowNotCompletedError(`Run ${run.runId} is still running; its trace is written when it closes`, {
      workflowId: run.workflowId,
      runId: run.runId,
    });
  }
  const key = traceKeyOf(run);
  const { remote, local } = deps.traces;
  let remoteUnloadable = false;
  if (remote) {
    const location = await remote.locate(key);
    const data = location ? await readTrace(remote, location, run, deps.logger) : undefined;
    if (data) return { source: 'remote', runId: run.runId, data };
    remoteUnloadable = location !== undefined;
  }
  if (local) {
    const localPath = await local.locate(key);
    const data = localPath ? await readTrace(local, localPath, run, deps.logger) : undefined;
    // A file that could not be read is still named, unless it went away between locate and read.
    if (localPath && (data || (await local.locate(key)) === localPath)) {
      return { source: 'local', runId: run.runId, localPath, ...(data ? { data } : {}) };
    }
  }
  // Written by a worker on another host: named, without data (only files inside this server's TRACE_DIR are read).
  const elsewhere = reportedElsewhere(run, local);
  if (elsewhere) return { source: 'local', runId: run.runId, localPath: elsewhere };
  if (remoteUnloadable) return { source: 'remote', runId: run.runId };
  throw new TraceNotFoundError(`No trace was recorded for run ${run.runId}`, { workflowId: run.workflowId, runId: run.runId });
}

/** The trace at `location`; `undefined`, with a warning naming the run, when what is stored there is not a trace. */
async function readTrace(store: TraceStore, location: string, run: RunDescription, logger: Logger): Promise<TraceRecord | undefined> {
  try {
    return await store.read(location);
  } catch (error) {
    if (!(error instanceof CorruptTraceError)) throw error;
    logger.warn('corrupt trace: answered without its data', {
      store: store.kind,
      workflowId: run.workflowId,
      runId: run.runId,
      location,
      error: error.message,
    });
    return undefined;
  }
}
