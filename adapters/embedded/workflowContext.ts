import type { WorkflowContext, WorkflowInfo } from '../../core/definition/context.js';
import { checkJsonInput, checkNonCancellable } from '../../core/definition/runRules.js';
import { executeChild } from './childWorkflows.js';
import { ContinueAsNewRequest } from './closings.js';
import { Payload } from './payload.js';
import type { RunCommands } from './runCommands.js';
import { sleep } from './sleep.js';
import { waitForWebhook } from './webhookWait.js';

/** The ctx handed to a workflow function on the embedded engine. */
export function createWorkflowContext(commands: RunCommands, isCancelRequested: () => boolean): WorkflowContext {
  return {
    info: workflowInfo(commands),
    get cancellationRequested() {
      return isCancelRequested();
    },
    sleep: (ms) => sleep(commands, ms),
    waitForWebhook: (request) => waitForWebhook(commands.currentScope(), request),
    continueAsNew: async (input) => {
      checkJsonInput(`The input of the run workflow ${commands.run.workflowName} continues as`, input);
      // Thrown like Temporal's ContinueAsNew, so `finally` blocks run; the run closes when it leaves the function.
      throw new ContinueAsNewRequest(Payload.of(input));
    },
    executeChild: (workflow, input, options) =>
      executeChild(commands.currentScope(), workflow, input, options) as Promise<never>,
    // Not async: an extra promise around fn's would move its outcome some ticks later than the code around it sees.
    nonCancellable: (fn) => refusedCall(() => checkNonCancellable(fn)) ?? commands.services.scopes.run({ commands, shielded: true }, fn),
  };
}

function workflowInfo(commands: RunCommands): WorkflowInfo {
  const run = commands.run;
  return Object.freeze({
    workflowId: run.workflowId,
    runId: run.runId,
    workflowName: run.workflowName,
    catalog: run.catalog,
    firstRunId: run.firstRunId,
    ...(run.continuedFromRunId ? { continuedFromRunId: run.continuedFromRunId } : {}),
    ...(run.parent ? { parent: { ...run.parent } } : {}),
    ...(run.root ? { root: { ...run.root } } : {}),
    startedAt: new Date(run.startedAt),
  });
}

/** A rejected promise with what `check` threw, or undefined when it passed: a call's mistake as its promise's failure. */
function refusedCall(check: () => void): Promise<never> | undefined {
  try {
    check();
    return undefined;
  } catch (error) {
    return Promise.reject(error);
  }
}
