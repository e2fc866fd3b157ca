import type { RunDescription, SerializedFailure } from '../domain/run.js';
import type { TraceKey, TraceRecord, TraceStep } from '../domain/trace.js';
import type { TraceStore, TraceStores } from '../../ports/traceStore.js';
import type { Logger } from '../../ports/logger.js';
import { traceKeyOf } from './traceKey.js';
import type { TraceUploads } from './traceUploads.js';

/** What an engine or worker hands over when a run closes. */
export interface ClosedRunRecord {
  run: RunDescription;
  input: unknown;
  output: unknown;
  failure: SerializedFailure | null;
  steps: TraceStep[];
}

export function buildTraceRecord(closed: ClosedRunRecord): TraceRecord {
  return {
    workflowId: closed.run.workflowId,
    runId: closed.run.runId,
    workflowName: closed.run.workflowName,
    input: closed.input ?? null,
    output: closed.output ?? null,
    error: closed.failure,
    startedAt: closed.run.startedAt.toISOString(),
    closedAt: closed.run.closedAt ? closed.run.closedAt.toISOString() : null,
    // A step called without input, or that returned nothing: null, as the trace's shape has it (JSON leaves an
    // undefined key out, and a trace without a step's input is refused as corrupt when read back).
    steps: closed.steps.map((step) => (step.input === undefined || step.output === undefined ? { ...step, input: step.input ?? null, output: step.output ?? null } : step)),
  };
}

/**
 * Writes a closed run's trace to every configured store. A failing store never fails the run: it is logged with
 * the run ids and the other destinations are still written. The local write is always waited for; with `uploads`,
 * the remote one only for `uploads.waitMs` (traceUploads.ts), then it finishes in the background.
 */
export async function recordTrace(traces: TraceStores, logger: Logger, closed: ClosedRunRecord, uploads?: TraceUploads): Promise<void> {
  const stores = [traces.local, traces.remote].filter((store) => store !== undefined);
  if (stores.length === 0) return;
  const key = traceKeyOf(closed.run);
  const record = buildTraceRecord(closed);
  const ids = { workflowId: key.workflowId, runId: key.runId };
  await Promise.all(
    stores.map(async (store) => {
      if (store.kind !== 'remote' || !uploads) {
        await writeLogged(store, key, record, logger, false);
        return;
      }
      if (!uploads.hasRoom()) {
        logger.error('trace write failed', { store: store.kind, ...ids, error: `not uploaded: ${uploads.size} earlier uploads are still running (the store is slow or down)` });
        return;
      }
      let late = false;
      await uploads.bound(
        writeLogged(store, key, record, logger, () => late),
        () => {
          late = true;
          logger.warn('trace upload still running; the run closes without waiting for it', { store: store.kind, ...ids, waitedMs: uploads.waitMs });
        },
      );
    }),
  );
}

/** Writes to one store; never rejects (a failure is logged). */
async function writeLogged(store: TraceStore, key: TraceKey, record: TraceRecord, logger: Logger, late: false | (() => boolean)): Promise<void> {
  try {
    const location = await store.write(key, record);
    if (late && late()) logger.info('trace uploaded after its run closed', { store: store.kind, workflowId: key.workflowId, runId: key.runId, location });
  } catch (error) {
    logger.error('trace write failed', {
      store: store.kind,
      workflowId: key.workflowId,
      runId: key.runId,
      error: error instanceof Error ? error.message : String(error),
    });
  }
}
