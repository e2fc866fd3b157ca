import { EngineError } from '../../../core/domain/errors.js';
import type { RelatedRun, RunDescription } from '../../../core/domain/run.js';
import { isInternalWorkflowType } from '../protocol.js';
import { idempotencyOf } from './idempotencyMemo.js';
import { localTracePathOf } from './traceMemo.js';
import { rerunOfMemo } from './rerunMemo.js';
import { startedByOf } from './startedByMemo.js';
import type { WorkflowExecutionInfo } from './proto.js';
import { runStatusOf } from './status.js';
import { decodeIfPossible, toDate } from './values.js';

/**
 * A run as describe and visibility report it. The catalog is the task queue (a catalog's workers poll the task queue
 * of its name). `firstRunId` falls back to the run itself when Temporal does not report it (old servers, some
 * visibility stores); `describe` looks it up in the run's first event instead.
 */
export function runDescriptionOf(info: WorkflowExecutionInfo): RunDescription {
  const workflowId = info.execution?.workflowId ?? '';
  const runId = info.execution?.runId ?? '';
  const status = runStatusOf(info.status);
  if (!status) throw new EngineError(`Temporal reported an unknown status ${String(info.status)} for run ${runId}`, { workflowId, runId });
  const closedAt = status === 'running' ? null : (toDate(info.closeTime) ?? null);
  const parent = relatedRun(info.parentExecution);
  const root = relatedRun(info.rootExecution);
  const idempotency = idempotencyOf(info.memo?.fields);
  const localTracePath = status === 'running' ? undefined : localTracePathOf(info.memo?.fields);
  const rerunOf = rerunOfMemo(info.memo?.fields);
  const startedBy = startedByOf(info.memo?.fields);
  const scheduleId = scheduleIdOf(info);
  return {
    workflowId,
    runId,
    workflowName: info.type?.name ?? '',
    catalog: info.taskQueue ?? '',
    status,
    startedAt: toDate(info.startTime) ?? new Date(0),
    closedAt,
    firstRunId: info.firstRunId || runId,
    ...(parent ? { parent } : {}),
    // A run that is its own root has no root worth naming (the embedded engine sets root only on children).
    ...(root && (root.workflowId !== workflowId || root.runId !== runId) ? { root } : {}),
    ...(idempotency ? { idempotency } : {}),
    ...(localTracePath ? { localTracePath } : {}),
    ...(rerunOf ? { rerunOf } : {}),
    ...(startedBy === undefined ? {} : { startedBy }),
    ...(scheduleId === undefined ? {} : { scheduleId }),
  };
}

/** Temporal tags every run a schedule starts with the schedule's id (docs/schedules.md). */
export const SCHEDULED_BY_SEARCH_ATTRIBUTE = 'TemporalScheduledById';

function scheduleIdOf(info: WorkflowExecutionInfo): string | undefined {
  const value = decodeIfPossible(info.searchAttributes?.indexedFields?.[SCHEDULED_BY_SEARCH_ATTRIBUTE]);
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** The catalog registry's workflows and the callback deliveries are implementation details: users never see them as runs. */
export function isInternalRun(info: WorkflowExecutionInfo | null | undefined): boolean {
  return isInternalWorkflowType(info?.type?.name);
}

function relatedRun(execution: { workflowId?: string | null; runId?: string | null } | null | undefined): RelatedRun | undefined {
  if (!execution?.workflowId || !execution.runId) return undefined;
  return { workflowId: execution.workflowId, runId: execution.runId };
}
