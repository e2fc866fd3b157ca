import type { z } from 'zod';
import type { WorkflowDefinition } from '../../core/definition/workflow.js';
import type { WorkflowResultV2 } from './types.js';

declare const workflowTypes: unique symbol;

/**
 * A workflow by name, typed as a definition without importing its code at run time:
 * `workflowRef<typeof summarise>('summarise')` with `import type { summarise }`.
 */
export interface WorkflowRef<In = unknown, Out = unknown> {
  readonly kind: 'workflow-ref';
  readonly name: string;
  /** Types only; never present. */
  readonly [workflowTypes]?: { input: In; output: Out };
}

export function workflowRef<W extends WorkflowDefinition<any, any, any>>(name: string): WorkflowRef<WorkflowInput<W>, WorkflowOutput<W>> {
  return { kind: 'workflow-ref', name };
}

/** What `run` and `start` take: a definition, a typed reference, or a name (input and output `unknown`). */
export type WorkflowTarget = WorkflowDefinition<any, any, any> | WorkflowRef<any, any> | string;

/** What a caller may send: the input schema's input side (before defaults apply). */
export type WorkflowInput<W> = W extends WorkflowRef<infer In, any>
  ? In
  : W extends { readonly inputSchema: infer S extends z.ZodType }
    ? z.input<S>
    : unknown;

/** What a completed run's `output` is: the output schema's output side. */
export type WorkflowOutput<W> = W extends WorkflowRef<any, infer Out>
  ? Out
  : W extends { readonly outputSchema: infer S extends z.ZodType }
    ? z.output<S>
    : unknown;

type ResultBase = Omit<WorkflowResultV2, 'status' | 'output'>;

/** A version-2 result whose `output` is the workflow's own type when the run completed, null otherwise. */
export type TypedResult<Out> =
  | (ResultBase & { status: 'completed'; output: Out })
  | (ResultBase & { status: Exclude<WorkflowResultV2['status'], 'completed'>; output: null });

export function workflowName(target: WorkflowTarget): string {
  return typeof target === 'string' ? target : target.name;
}
