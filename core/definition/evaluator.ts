import type { Activity } from './activity.js';
import { defineActivity, type StepSpec } from './step.js';

/** Defines an evaluator: a step that judges a result (recorded with kind `evaluator` in traces and hooks). */
export function evaluator<I = unknown, O = unknown>(spec: StepSpec<I, O>): Activity<I, O> {
  return defineActivity('evaluator', spec);
}
