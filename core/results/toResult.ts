import type { LegacyErrorDetails, ResultVersion, WorkflowResult, WorkflowResultLegacy, WorkflowResultV2 } from '../api/views.js';
import type { RunOutcome, SerializedFailure } from '../domain/run.js';
import { isTerminal, type TerminalStatus } from '../domain/status.js';
import type { TraceDestinations } from '../domain/trace.js';
import { closingFailure } from './closingFailure.js';

export interface ResultParts {
  outcome: RunOutcome;
  /** The original input; null when it is no longer available. */
  input: unknown;
  trace: TraceDestinations;
}

function terminalStatus(outcome: RunOutcome): TerminalStatus {
  const { status } = outcome.run;
  if (!isTerminal(status)) throw new TypeError(`a result needs a closed run; run ${outcome.run.runId} is ${status}`);
  return status;
}

export function toResultV2({ outcome, input, trace }: ResultParts): WorkflowResultV2 {
  const status = terminalStatus(outcome);
  return {
    v: '2',
    workflowId: outcome.run.workflowId,
    runId: outcome.run.runId,
    status,
    input: input ?? null,
    output: status === 'completed' ? (outcome.output ?? null) : null,
    trace: { ...trace },
    error: closingFailure(outcome),
  };
}

function causeChain(failure: SerializedFailure | undefined): Record<string, unknown> | null {
  if (!failure) return null;
  return { name: failure.name, message: failure.message, ...(failure.cause ? { cause: causeChain(failure.cause) } : {}) };
}

function legacyErrorDetails(failure: SerializedFailure): LegacyErrorDetails {
  return {
    message: failure.message,
    name: failure.name,
    retryable: failure.retryable ?? null,
    activityId: failure.activityType ?? null,
    cause: causeChain(failure.cause),
  };
}

/** The deprecated shape: `error` and `errorDetails` only for failed runs (docs/api.md, Results). */
export function toResultLegacy({ outcome, input, trace }: ResultParts): WorkflowResultLegacy {
  const status = terminalStatus(outcome);
  const failure = status === 'failed' ? closingFailure(outcome) : null;
  return {
    workflowId: outcome.run.workflowId,
    runId: outcome.run.runId,
    status,
    input: input ?? null,
    output: status === 'completed' ? (outcome.output ?? null) : null,
    trace: { destinations: { ...trace } },
    error: failure ? failure.message : null,
    errorDetails: failure ? legacyErrorDetails(failure) : null,
  };
}

export function toResult(parts: ResultParts, version: ResultVersion): WorkflowResult {
  return version === 'legacy' ? toResultLegacy(parts) : toResultV2(parts);
}
