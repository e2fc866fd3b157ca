import type { z } from 'zod';
import type { ActivityKind } from '../domain/trace.js';
import { DEFAULT_STEP_TIMEOUT_MS, type Activity, type ActivityDefinition } from './activity.js';
import { recordDefinedStep } from './definedSteps.js';
import { assertDefinitionName } from './names.js';
import { resolveRetryPolicy, type RetryOptions } from './retry.js';
import { callActivity } from './stepRouting.js';

export interface StepSpec<I, O> {
  name: string;
  description?: string | undefined;
  inputSchema?: z.ZodType<I> | undefined;
  outputSchema?: z.ZodType<O> | undefined;
  fn: (input: I) => Promise<O>;
  retry?: RetryOptions | undefined;
  /** Longest a single attempt may take. @default 300000 */
  timeoutMs?: number | undefined;
}

export function defineActivity<I, O>(kind: ActivityKind, spec: StepSpec<I, O>): Activity<I, O> {
  assertDefinitionName(kind, spec.name);
  if (typeof spec.fn !== 'function') throw new TypeError(`${kind} ${spec.name}: fn must be a function`);
  const timeoutMs = spec.timeoutMs ?? DEFAULT_STEP_TIMEOUT_MS;
  if (!(timeoutMs > 0) || !Number.isFinite(timeoutMs)) throw new RangeError(`${kind} ${spec.name}: timeoutMs must be a finite positive number, got ${String(timeoutMs)}`);
  const definition: ActivityDefinition<I, O> = Object.freeze({
    kind,
    name: spec.name,
    inputSchema: spec.inputSchema,
    outputSchema: spec.outputSchema,
    fn: spec.fn,
    retry: resolveRetryPolicy(spec.retry, `${kind} ${spec.name}`),
    timeoutMs,
  });
  const call = (input: I) => callActivity(definition as ActivityDefinition, input) as Promise<O>;
  Object.defineProperty(call, 'name', { value: spec.name });
  // flowgate's own internal steps (a webhook wait's call) are no step a user could replace by name.
  if (kind !== 'internal_step') recordDefinedStep(spec.name);
  return Object.assign(call, { definition });
}

/** Defines a step: the unit of work a workflow calls, recorded in history, retried on failure. */
export function step<I = unknown, O = unknown>(spec: StepSpec<I, O>): Activity<I, O> {
  return defineActivity('step', spec);
}
