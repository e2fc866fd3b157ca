import { continueAsNew, makeContinueAsNewFunc, workflowInfo } from '@temporalio/workflow';
import { FEEDBACK_WAIT_MEMO_KEY, TRACE_MEMO_KEY } from '../protocol.js';
import { checkJsonInput } from '../../../core/definition/runRules.js';
import { checkPayload } from './payloadLimit.js';

type AnyWorkflow = (input: unknown) => Promise<unknown>;

/**
 * ctx.continueAsNew: the same workflow type and task queue (the SDK's defaults), and this run's memo given again
 * explicitly (its callback, its Idempotency-Key record and the run a rerun repeats; not its trace location nor its last wait), so every run of the chain carries what the chain was
 * started with, whatever the server does with a memo the command leaves out. Throws ContinueAsNew, so `finally`
 * blocks run.
 */
export function continueAsNewKeepingMemo(input: unknown): Promise<never> {
  const what = `The input of the run workflow ${workflowInfo().workflowType} continues as`;
  checkJsonInput(what, input);
  checkPayload(what, input);
  // Not the trace location: that is this run's file, and the next run records its own as it closes. Nor the last wait's.
  const { [TRACE_MEMO_KEY]: _ownTrace, [FEEDBACK_WAIT_MEMO_KEY]: _ownWait, ...memo } = workflowInfo().memo ?? {};
  if (Object.keys(memo).length === 0) return continueAsNew<AnyWorkflow>(input);
  return makeContinueAsNewFunc<AnyWorkflow>({ memo })(input);
}
