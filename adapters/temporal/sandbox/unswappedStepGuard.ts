import { NonRetryableError } from '../../../core/definition/failures.js';
import { addStepRouter, type StepRouter } from '../../../core/definition/stepRouting.js';

/** Raised when workflow code calls a step whose module the worker did not swap for activity stubs. */
export class UnswappedStepError extends NonRetryableError {
  override name = 'UnswappedStepError';
}

const GUARD = Symbol.for('flowgate.temporal.unswappedStepGuard');
type GuardHolder = { [GUARD]?: StepRouter };

/**
 * A step defined inside a workflow module (or in any module the worker did not recognise as a step module) would
 * run its code inside the sandbox. The core routes every step call through its routers first, so this router turns
 * such a call into a clear failure instead. Installed once per sandbox global, however often modules are evaluated.
 */
export function guardUnswappedSteps(): void {
  const holder = globalThis as GuardHolder;
  holder[GUARD] ??= {
    route: (activity) =>
      Promise.reject(
        new UnswappedStepError(
          `Step "${activity.name}" ran inside the workflow sandbox: define steps in their own modules (not in a workflow's file) so the worker can swap them for activities`,
        ),
      ),
  };
  addStepRouter(holder[GUARD]);
}
