import type { z } from 'zod';
import type { ActivityKind } from '../domain/trace.js';
import type { RetryPolicy } from './retry.js';

/** What a step or evaluator is, as the engines see it. */
export interface ActivityDefinition<I = unknown, O = unknown> {
  readonly kind: ActivityKind;
  readonly name: string;
  readonly inputSchema: z.ZodType<I> | undefined;
  readonly outputSchema: z.ZodType<O> | undefined;
  readonly fn: (input: I) => Promise<O>;
  readonly retry: RetryPolicy;
  /** Longest a single attempt may take. */
  readonly timeoutMs: number;
}

/** A step or evaluator as workflow code sees it: an async function of one argument, carrying its definition. */
export type Activity<I = unknown, O = unknown> = ((input: I) => Promise<O>) & {
  readonly definition: ActivityDefinition<I, O>;
};

export function isActivity(value: unknown): value is Activity {
  return typeof value === 'function' && typeof (value as { definition?: { kind?: unknown } }).definition?.kind === 'string';
}

export const DEFAULT_STEP_TIMEOUT_MS = 5 * 60_000;
