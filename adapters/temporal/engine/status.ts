import type { RunStatus } from '../../../core/domain/status.js';
import { enums } from './proto.js';

const Status = enums.WorkflowExecutionStatus;

const STATUS_OF_EXECUTION: ReadonlyMap<number, RunStatus> = new Map([
  [Status.WORKFLOW_EXECUTION_STATUS_RUNNING, 'running'],
  // A paused run is still open: it resumes where it stopped.
  [Status.WORKFLOW_EXECUTION_STATUS_PAUSED, 'running'],
  [Status.WORKFLOW_EXECUTION_STATUS_COMPLETED, 'completed'],
  [Status.WORKFLOW_EXECUTION_STATUS_FAILED, 'failed'],
  [Status.WORKFLOW_EXECUTION_STATUS_CANCELED, 'cancelled'],
  [Status.WORKFLOW_EXECUTION_STATUS_TERMINATED, 'terminated'],
  [Status.WORKFLOW_EXECUTION_STATUS_CONTINUED_AS_NEW, 'continued_as_new'],
  [Status.WORKFLOW_EXECUTION_STATUS_TIMED_OUT, 'timed_out'],
]);

/** Temporal's execution status as a flowgate run status; undefined for a value this adapter does not know. */
export function runStatusOf(status: number | null | undefined): RunStatus | undefined {
  return STATUS_OF_EXECUTION.get(status ?? Status.WORKFLOW_EXECUTION_STATUS_UNSPECIFIED);
}

/** The `ExecutionStatus` value of a visibility query for each run status. */
export const VISIBILITY_STATUS: Readonly<Record<RunStatus, string>> = {
  running: 'Running',
  completed: 'Completed',
  failed: 'Failed',
  cancelled: 'Canceled',
  terminated: 'Terminated',
  continued_as_new: 'ContinuedAsNew',
  timed_out: 'TimedOut',
};
