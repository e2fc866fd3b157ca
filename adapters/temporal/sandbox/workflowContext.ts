import { CancellationScope, isCancellation, sleep as temporalSleep } from '@temporalio/workflow';
import type { z } from 'zod';
import type { WorkflowContext } from '../../../core/definition/context.js';
import { CancelledError } from '../../../core/definition/failures.js';
import { checkNonCancellable, checkSleepDuration } from '../../../core/definition/runRules.js';
import { executeChild, type ServedDefinitions } from './childWorkflows.js';
import { continueAsNewKeepingMemo } from './continueAsNew.js';
import type { RunState } from './runState.js';
import { waitForWebhook } from './webhookWait.js';

/**
 * The ctx handed to a workflow function on Temporal; mirrors adapters/embedded/workflowContext.ts. `feedbackSchema` is
 * the workflow's: webhook waits hand over their reply parsed by it. `servedHere`: the worker's definitions by name, for
 * what a child named by a string needs from its definition.
 */
export function createWorkflowContext(run: RunState, feedbackSchema: z.ZodType | undefined, servedHere?: ServedDefinitions): WorkflowContext {
  return {
    info: run.info,
    get cancellationRequested() {
      return run.cancellationRequested;
    },
    sleep: (ms) => sleep(ms),
    waitForWebhook: (request) => waitForWebhook(run, feedbackSchema, request),
    continueAsNew: (input) => continueAsNewKeepingMemo(input),
    executeChild: (workflow, input, options) => executeChild(run, workflow, input, options, servedHere) as Promise<never>,
    // Not async, as on the embedded engine: an extra promise around the scope's would settle it some ticks later,
    // which could reorder the commands of branches that settle together.
    nonCancellable: (fn) => {
      try {
        checkNonCancellable(fn);
      } catch (error) {
        return Promise.reject(error);
      }
      return CancellationScope.nonCancellable(fn);
    },
  };
}

/** A durable timer; a stop (outside nonCancellable) rejects it with the core's CancelledError. */
async function sleep(ms: number): Promise<void> {
  checkSleepDuration(ms);
  try {
    // A zero-length timer is not a valid Temporal command; 1 ms keeps the timer (and its history events).
    await temporalSleep(Math.max(1, ms));
  } catch (error) {
    if (isCancellation(error)) throw new CancelledError('Timer cancelled');
    throw error;
  }
}
