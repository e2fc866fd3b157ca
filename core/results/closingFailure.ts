import { cancelledRunFailure, type RunOutcome, type SerializedFailure } from '../domain/run.js';

const CLOSING_FAILURES: Partial<Record<string, SerializedFailure>> = {
  terminated: { name: 'WorkflowTerminatedError', message: 'The workflow run was terminated' },
  timed_out: { name: 'WorkflowTimedOutError', message: 'The workflow run exceeded its time limit' },
};

/**
 * The error a result reports: the engine's failure, or for runs that ended without one (cancelled, terminated,
 * timed out) a failure naming how they ended. Completed and continued runs report none. A cancelled run reports
 * WorkflowCancelledError whatever its engine kept (the embedded engine of earlier releases kept the CancelledError its
 * code met).
 */
export function closingFailure(outcome: RunOutcome): SerializedFailure | null {
  const { status } = outcome.run;
  if (status === 'completed' || status === 'continued_as_new' || status === 'running') return null;
  if (status === 'cancelled') return cancelledRunFailure();
  return outcome.failure ?? CLOSING_FAILURES[status] ?? { name: 'WorkflowFailedError', message: 'The workflow run failed' };
}
