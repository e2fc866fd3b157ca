import { StepNotCompletedError, StepNotFoundError } from '../../core/domain/errors.js';
import type { PinnedRunRef, RunRef } from '../../core/domain/run.js';
import type { CatalogRegistry } from './catalogs.js';
import type { RunLifecycle } from './runLifecycle.js';
import type { RunRecord } from './runRecord.js';
import type { RunStore } from './runStore.js';

export interface ResetDeps {
  store: RunStore;
  lifecycle: RunLifecycle;
  catalogs: CatalogRegistry;
}

/**
 * Temporal's reset to "just after step X completed": a new run of the same workflow id whose history is the old
 * one up to X's last completion, replaying every command completed by then and running the rest for real.
 * The open run of the id, if any, is terminated first. Replies received after the point are delivered again.
 *
 * At most one run of an id is open (docs/api.md, reset). Temporal terminates the current run and starts the new one
 * in one transaction; here a terminate takes time (its trace is written), so after every wait the id is looked at
 * again, and the new run is created in the same synchronous step that found no open run: no start, and no other
 * reset, can open a run in between. Concurrent resets thus each succeed, one after the other, each terminating the
 * run the one before made, as on Temporal.
 */
export async function resetRun(deps: ResetDeps, ref: RunRef, stepName: string, reason: string): Promise<PinnedRunRef> {
  const old = deps.store.find(ref);
  const { workflowId, runId, catalog, workflowName, firstRunId, continuedFromRunId, parent, root, rerunOf } = old.description;
  const target = old.execution.commands.resetTarget(stepName);
  if (target.kind === 'not_found') {
    throw new StepNotFoundError(`Step "${stepName}" never ran in run ${runId} of workflow ${workflowId}`, { workflowId, runId });
  }
  if (target.kind === 'not_completed') {
    throw new StepNotCompletedError(`Step "${stepName}" never completed in run ${runId} of workflow ${workflowId}`, { workflowId, runId });
  }
  const terminateReason = `Reset to after step "${stepName}" of run ${runId}${reason ? `: ${reason}` : ''}`;
  // The check that finds no open run and the creation of the new run below share one synchronous step.
  for (let open = openRun(deps.store, workflowId); open; open = openRun(deps.store, workflowId)) {
    await closeRun(deps, open, terminateReason);
  }

  const point = target.record.completion ?? 0;
  const pointEventId = target.record.completionEventId ?? 0;
  const events = old.history.events.slice(0, pointEventId);
  const next = deps.lifecycle.createRun(
    {
      definition: deps.catalogs.liveDefinition(catalog, workflowName) ?? old.definition,
      workflowId,
      catalog,
      input: old.input,
      chainInput: old.chainInput,
      firstRunId,
      ...(old.callback ? { callback: old.callback } : {}),
      ...(rerunOf ? { rerunOf } : {}),
      ...(continuedFromRunId ? { continuedFromRunId } : {}),
      ...(parent ? { parent } : {}),
      ...(root ? { root } : {}),
    },
    {
      events,
      replay: { commands: [...old.execution.commands.records], point },
      cancelRequested: events.some((event) => event.type === 'workflow_cancel_requested'),
      seed: (record) => {
        record.history.addAttributes(1, { resetFromRunId: runId });
        record.history.append('workflow_reset', { reason, stepName, resetFromRunId: runId });
        for (const reply of old.execution.inbox.received) {
          const eventId =
            reply.eventId <= pointEventId
              ? reply.eventId
              : record.history.append('signal_received', { signalName: 'feedback', payload: reply.payload }).eventId;
          record.execution.inbox.deliver(reply.payload, eventId);
        }
      },
    },
  );
  return { workflowId, runId: next.description.runId };
}

/** The run of the id that is open (closing included): a reset must close it before its own run opens. */
function openRun(store: RunStore, workflowId: string): RunRecord | undefined {
  const latest = store.latest(workflowId);
  return latest && !latest.closed ? latest : undefined;
}

/** Terminates the run, or waits for the close already under way (which may continue it as new: the caller looks again). */
async function closeRun(deps: ResetDeps, run: RunRecord, reason: string): Promise<void> {
  if (run.closing) await new Promise<void>((resolve) => run.onClosed(resolve));
  else await deps.lifecycle.terminate(run, reason);
}
