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
 */
export async function resetRun(deps: ResetDeps, ref: RunRef, stepName: string, reason: string): Promise<PinnedRunRef> {
  const old = deps.store.find(ref);
  const { workflowId, runId, catalog, workflowName, firstRunId, continuedFromRunId, parent, root } = old.description;
  const target = old.execution.commands.resetTarget(stepName);
  if (target.kind === 'not_found') {
    throw new StepNotFoundError(`Step "${stepName}" never ran in run ${runId} of workflow ${workflowId}`, { workflowId, runId });
  }
  if (target.kind === 'not_completed') {
    throw new StepNotCompletedError(`Step "${stepName}" never completed in run ${runId} of workflow ${workflowId}`, { workflowId, runId });
  }
  await closeOpenRun(deps, workflowId, `Reset to after step "${stepName}" of run ${runId}${reason ? `: ${reason}` : ''}`);

  const point = target.record.completion ?? 0;
  const pointEventId = target.record.completionEventId ?? 0;
  const events = old.history.events.slice(0, pointEventId);
  const next = deps.lifecycle.createRun(
    {
      definition: deps.catalogs.liveDefinition(catalog, workflowName) ?? old.definition,
      workflowId,
      catalog,
      input: old.input,
      firstRunId,
      ...(old.callback ? { callback: old.callback } : {}),
      ...(continuedFromRunId ? { continuedFromRunId } : {}),
      ...(parent ? { parent } : {}),
      ...(root ? { root } : {}),
    },
    {
      events,
      replay: { commands: [...old.execution.commands.records], point },
      cancelRequested: events.some((event) => event.type === 'workflow_cancel_requested'),
      seed: (record) => {
        const started = record.history.events[0];
        if (started) record.history.amend(1, { ...started.attributes, resetFromRunId: runId });
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

/** Loops because a run that was already closing may continue as new. */
async function closeOpenRun(deps: ResetDeps, workflowId: string, reason: string): Promise<void> {
  for (;;) {
    const latest: RunRecord | undefined = deps.store.latest(workflowId);
    if (!latest || latest.closed) return;
    if (latest.closing) await new Promise<void>((resolve) => latest.onClosed(resolve));
    else await deps.lifecycle.terminate(latest, reason);
  }
}
