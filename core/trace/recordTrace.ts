import type { RunDescription, SerializedFailure } from '../domain/run.js';
import type { TraceRecord, TraceStep } from '../domain/trace.js';
import type { TraceStores } from '../../ports/traceStore.js';
import type { Logger } from '../../ports/logger.js';
import { traceKeyOf } from './traceKey.js';

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
    steps: closed.steps,
  };
}

/**
 * Writes a closed run's trace to every configured store. A failing store never fails the run: it is logged with
 * the run ids and the other destinations are still written.
 */
export async function recordTrace(traces: TraceStores, logger: Logger, closed: ClosedRunRecord): Promise<void> {
  const stores = [traces.local, traces.remote].filter((store) => store !== undefined);
  if (stores.length === 0) return;
  const key = traceKeyOf(closed.run);
  const record = buildTraceRecord(closed);
  await Promise.all(
    stores.map(async (store) => {
      try {
        await store.write(key, record);
      } catch (error) {
        logger.error('trace write failed', {
          store: store.kind,
          workflowId: key.workflowId,
          runId: key.runId,
          error: error instanceof Error ? error.message : String(error),
        });
      }
    }),
  );
}
