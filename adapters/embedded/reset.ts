import { stepNeverCompleted, stepNeverRan } from '../../core/domain/errors.js';
import { identityAttribute } from '../../core/domain/history.js';
import type { PinnedRunRef, RunRef } from '../../core/domain/run.js';
import type { CatalogRegistry } from './catalogs.js';
import { resetTargetOf } from './commandLog.js';
import type { LiveRuns } from './liveRuns.js';
import { Payload } from './payload.js';
import type { RunLifecycle } from './runLifecycle.js';
import type { RunRecord } from './runRecord.js';
import type { RunState } from './store/engineStore.js';

export interface ResetDeps {
  live: LiveRuns;
  lifecycle: RunLifecycle;
  catalogs: CatalogRegistry;
  /** The old run as stored (a live run's own state, or the store's copy of a closed one). */
  stateOf(ref: RunRef): RunState;
}

/**
 * Temporal's reset to "just after step X completed": a new run of the same workflow id whose history is the old
 * one up to X's last completion, replaying every command completed by then (in the order they completed, replay.ts)
 * and running the rest for real. The open run of the id, if any, is terminated first. Replies received after the
 * point are delivered again.
 *
 * At most one run of an id is open (docs/api.md, reset). As on Temporal, the terminate of the open run and the start
 * of the new one are one commit: the new run is made inside the terminate's close (its successor). A close already
 * under way (another reset, a stop) is waited for and the id looked at again, so concurrent resets each succeed, one
 * after the other, each terminating the run the one before made, as on Temporal.
 */
export async function resetRun(
  deps: ResetDeps,
  ref: RunRef,
  stepName: string,
  reason: string,
  /** Told the new run in the commit that makes it (a keyed reset keeps its key there). */
  made?: (next: PinnedRunRef) => void,
  /** The API key resetting: on the new run's workflow_reset event and the old run's workflow_terminated, as on Temporal. */
  identity?: string,
): Promise<PinnedRunRef> {
  const old = deps.stateOf(ref);
  const { workflowId, runId } = old.description;
  const target = resetTargetOf(old.commands, stepName);
  if (target.kind === 'not_found') {
    throw stepNeverRan(stepName, workflowId, runId);
  }
  if (target.kind === 'not_completed') {
    throw stepNeverCompleted(stepName, workflowId, runId);
  }
  const terminateReason = `Reset to after step "${stepName}" of run ${runId}${reason ? `: ${reason}` : ''}`;
  const create = (): RunRecord => createResetRun(deps, old, target.record.completion ?? 0, target.record.completionEventId ?? 0, stepName, reason, identity);
  for (;;) {
    const open = openRun(deps.live, workflowId);
    if (!open) break;
    if (open.closing) {
      await new Promise<void>((resolve) => open.onClosed(resolve));
      continue;
    }
    let next: RunRecord | undefined;
    await deps.lifecycle.terminate(open, terminateReason, {
      successor: () => (next = create()),
      decided: (successor) => successor && made?.({ workflowId, runId: successor.description.runId }),
    }, identity);
    if (next) return { workflowId, runId: next.description.runId };
  }
  // No run open: the new run stands alone.
  const next = create();
  made?.({ workflowId, runId: next.description.runId });
  await deps.lifecycle.launch(next);
  return { workflowId, runId: next.description.runId };
}

function createResetRun(deps: ResetDeps, old: RunState, point: number, pointEventId: number, stepName: string, reason: string, identity: string | undefined): RunRecord {
  const { workflowId, runId, catalog, workflowName, firstRunId, continuedFromRunId, parent, root, rerunOf, startedBy, scheduleId } = old.description;
  const events = old.events.slice(0, pointEventId);
  const live = deps.live.get(runId);
  return deps.lifecycle.createRun(
    {
      // The code a worker serves now; the old run's own when none does (a reset of a run whose worker is gone waits).
      definition: deps.catalogs.liveDefinition(catalog, workflowName) ?? live?.definition,
      workflowId,
      workflowName,
      catalog,
      input: old.input,
      chainInput: old.chainInput,
      firstRunId,
      ...(old.callback ? { callback: old.callback } : {}),
      ...(rerunOf ? { rerunOf } : {}),
      ...(startedBy === undefined ? {} : { startedBy }),
      ...(scheduleId === undefined ? {} : { scheduleId }),
      ...(continuedFromRunId ? { continuedFromRunId } : {}),
      ...(parent ? { parent } : {}),
      ...(root ? { root } : {}),
    },
    {
      events,
      replay: { reason: 'reset', commands: old.commands, point },
      cancelRequested: events.some((event) => event.type === 'workflow_cancel_requested'),
      seed: (record) => {
        record.history.addAttributes(1, { resetFromRunId: runId });
        record.history.append('workflow_reset', { reason, stepName, resetFromRunId: runId, ...identityAttribute(identity) });
        for (const event of old.events) {
          const payload = event.attributes.payload;
          if (event.type !== 'signal_received' || !(payload instanceof Payload)) continue;
          const replayed = { signalName: 'feedback', payload, ...identityAttribute(event.attributes.identity as string | undefined) };
          const eventId = event.eventId <= pointEventId ? event.eventId : record.history.append('signal_received', replayed).eventId;
          record.execution.inbox.deliver(payload, eventId);
        }
      },
    },
  );
}

/** The run of the id that is open (closing included): a reset must close it before its own run opens. */
function openRun(live: LiveRuns, workflowId: string): RunRecord | undefined {
  const latest = live.latest(workflowId);
  return latest && !latest.closed ? latest : undefined;
}
