import { CancelledFailure, ContinueAsNew, isCancellation, workflowInfo } from '@temporalio/workflow';
import { CancelledError, childWorkflowNotFound, serializeFailure } from '../../../core/definition/failures.js';
import { invalidInputFailure, schemaVerdict } from '../../../core/definition/runRules.js';
import { cancelledRunFailure } from '../../../core/domain/run.js';
import type { WorkflowDefinition } from '../../../core/definition/workflow.js';
import { CALLBACK_WORKFLOW_TYPE, type CallbackDelivery, type TraceLocation } from '../protocol.js';
import { FeedbackInbox } from './feedbackInbox.js';
import { callbackWorkflow, startCallbackDelivery } from './runCallback.js';
import { RunState } from './runState.js';
import { checkOutput, runFailure } from './runOutcome.js';
import { limitPayloads } from './payloadLimit.js';
import { resultReportingTrace } from './resultTraceReport.js';
import { reportRunClosed, reportRunStarted, type RunClosing } from './runSink.js';
import { recordTraceLocation } from './traceLocation.js';
import { guardUnswappedSteps } from './unswappedStepGuard.js';
import type { ServedDefinitions } from './childWorkflows.js';
import { createWorkflowContext } from './workflowContext.js';

export interface DispatcherOptions {
  /** MAX_RESULT_BYTES, baked into the generated entry module at bundle time. */
  maxResultBytes: number;
  /** TEMPORAL_MAX_PAYLOAD_BYTES when the worker has no claim-check store (baked in likewise); absent: no such limit. */
  maxPayloadBytes?: number;
}

/**
 * The default export of the generated entry module: Temporal calls it for every workflow type the entry does not
 * export by name, so one function runs every flowgate definition, chosen by `workflowInfo().workflowType`.
 */
export function createWorkflowDispatcher(
  workflows: readonly WorkflowDefinition<any, any>[],
  options: DispatcherOptions,
): (input: unknown) => Promise<unknown> {
  const byName = new Map<string, WorkflowDefinition>(workflows.map((definition) => [definition.name, definition as WorkflowDefinition]));
  limitPayloads(options.maxPayloadBytes);
  return async function flowgateWorkflow(input: unknown): Promise<unknown> {
    if (workflowInfo().workflowType === CALLBACK_WORKFLOW_TYPE) return callbackWorkflow(input as CallbackDelivery);
    // Synchronously, before any await: the feedback handler must exist before the first signal is applied, and the
    // current scope is the root scope only here.
    const run = RunState.capture(FeedbackInbox.install());
    guardUnswappedSteps();
    const definition = byName.get(run.info.workflowName);
    if (!definition) {
      const known = [...byName.keys()].join(', ') || 'none';
      if (run.info.parent === undefined) {
        // A run the API started: it checked the catalog memo, where the newest worker's workflows are listed, so during
        // a rolling deploy an older worker of the queue may take a workflow only a newer one serves. A plain Error
        // fails only this workflow TASK, which Temporal retries until a worker serving the type takes it; a run
        // failure here would close the run FAILED for good.
        throw new Error(`Workflow type "${run.info.workflowName}" is not served by this worker of catalog "${run.info.catalog}" (it serves: ${known}); the task is retried on another worker`);
      }
      // A child started by a parent's ctx.executeChild with a type this catalog does not serve: the same failure the
      // embedded engine gives such a child, so the parent's ChildWorkflowFailedError reads alike on both engines.
      throw runFailure(childWorkflowNotFound(run.info.workflowName, run.info.catalog, ` (the worker that took the run serves: ${known})`));
    }
    reportRunStarted();
    return runDefinition(definition, input, run, options, (name) => byName.get(name));
  };
}

async function runDefinition(
  definition: WorkflowDefinition,
  input: unknown,
  run: RunState,
  options: DispatcherOptions,
  servedHere: ServedDefinitions,
): Promise<unknown> {
  const parsedInput = schemaVerdict(definition.inputSchema, input);
  if (!parsedInput.success) return await fail(invalidInputFailure(definition.name, parsedInput.issues), input);
  let output: unknown;
  try {
    output = await definition.fn(parsedInput.data, createWorkflowContext(run, definition.feedbackSchema, servedHere));
  } catch (error) {
    if (error instanceof ContinueAsNew) {
      await closeRun({ status: 'continued_as_new', input });
      throw error;
    }
    if (run.cancellationRequested && (error instanceof CancelledError || isCancellation(error))) {
      // Its trace and hooks get the error its result reports (engine/outcome.ts), as on the embedded engine.
      await closeRun({ status: 'cancelled', input, failure: cancelledRunFailure() });
      await startCallbackDelivery();
      // Temporal closes a run as CANCELED only when it ends with its own CancelledFailure after a cancel request.
      throw isCancellation(error) ? error : new CancelledFailure((error as Error).message);
    }
    return await fail(serializeFailure(error), input);
  }
  const checked = checkOutput(definition, output, options.maxResultBytes, options.maxPayloadBytes);
  if (!checked.ok) return await fail(checked.failure, input);
  const traceLocation = await closeRun({ status: 'completed', input, output: checked.value });
  await startCallbackDelivery();
  return resultReportingTrace(checked.value, traceLocation);
}

async function fail(failure: ReturnType<typeof serializeFailure>, input: unknown): Promise<never> {
  const traceLocation = await closeRun({ status: 'failed', input, failure });
  await startCallbackDelivery();
  throw runFailure(failure, traceLocation);
}

/**
 * A run closing on its own: where its trace goes is recorded with the run, then the worker writes it and tells its
 * hooks. Returns that location (undefined when the worker did not say).
 */
async function closeRun(closing: RunClosing): Promise<TraceLocation | undefined> {
  const location = await recordTraceLocation();
  reportRunClosed({ ...closing, traceStartedAt: location?.startedAt });
  return location;
}
