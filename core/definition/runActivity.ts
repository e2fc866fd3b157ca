import { NonRetryableError } from './failures.js';
import type { ActivityDefinition } from './activity.js';
import { thrownMessage } from './thrownValues.js';
import { describeIssues, schemaVerdict } from './runRules.js';

/** Validation failures are not worth retrying: the same input fails the same way. */
export class StepInputValidationError extends NonRetryableError {
  override name = 'StepInputValidationError';
}
export class StepOutputValidationError extends NonRetryableError {
  override name = 'StepOutputValidationError';
}

/**
 * A step's result that JSON refuses (a BigInt, a cycle): named as the step's output, not retried (the same code
 * returns the same value), on both engines.
 */
export function stepOutputNotJson(activity: Pick<ActivityDefinition, 'kind' | 'name'>, error: unknown): StepOutputValidationError {
  return new StepOutputValidationError(`Output of ${activity.kind} ${activity.name} is not JSON: ${thrownMessage(error)}`);
}

/** One attempt of a step: validate input, call it, validate output. Used by every engine. */
export async function runActivity(activity: ActivityDefinition, input: unknown): Promise<unknown> {
  let checkedInput = input;
  if (activity.inputSchema) {
    const parsed = schemaVerdict(activity.inputSchema, input);
    if (!parsed.success) {
      throw new StepInputValidationError(`Invalid input for ${activity.kind} ${activity.name}: ${describeIssues(parsed.issues)}`);
    }
    checkedInput = parsed.data;
  }
  let output = await activity.fn(checkedInput);
  if (activity.outputSchema) {
    const parsed = schemaVerdict(activity.outputSchema, output);
    if (!parsed.success) {
      throw new StepOutputValidationError(`Invalid output of ${activity.kind} ${activity.name}: ${describeIssues(parsed.issues)}`);
    }
    output = parsed.data;
  }
  // JSON writes a function or a symbol as nothing: the step would seem to have returned undefined.
  if (typeof output === 'function' || typeof output === 'symbol') throw stepOutputNotJson(activity, `JSON has no ${typeof output}`);
  return output;
}
