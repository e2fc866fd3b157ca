import type { z } from 'zod';
import type { WorkflowContext } from './context.js';
import { assertDefinitionName } from './names.js';

/** `I` is the input the workflow's code gets, `In` what a caller may send (before the schema's defaults apply). */
export interface WorkflowDefinition<I = unknown, O = unknown, In = I> {
  readonly kind: 'workflow';
  readonly name: string;
  readonly description: string;
  readonly inputSchema: z.ZodType<I, In>;
  readonly outputSchema: z.ZodType<O>;
  readonly fn: (input: I, ctx: WorkflowContext) => Promise<O>;
  /** A run still open after this long ends as timed_out. */
  readonly runTimeoutMs: number | undefined;
}

export interface WorkflowSpec<IS extends z.ZodType, OS extends z.ZodType> {
  name: string;
  /** What the workflow does, as GET /workflow/list publishes it. @default '' */
  description?: string | undefined;
  /** Required: a run's input is validated with it before the run starts, and GET /workflow/list publishes it. */
  inputSchema: IS;
  /** Required: a run's output is validated with it, and GET /workflow/list publishes it. */
  outputSchema: OS;
  fn: (input: z.output<IS>, ctx: WorkflowContext) => Promise<z.input<OS>>;
  runTimeoutMs?: number;
}

/** Defines a workflow. The module that calls this should import its steps, not define them (see docs/authoring.md). */
export function workflow<IS extends z.ZodType, OS extends z.ZodType>(
  spec: WorkflowSpec<IS, OS>,
): WorkflowDefinition<z.output<IS>, z.output<OS>, z.input<IS>> {
  assertDefinitionName('workflow', spec.name);
  if (typeof spec.fn !== 'function') throw new TypeError(`workflow ${spec.name}: fn must be a function`);
  if (!isSchema(spec.inputSchema) || !isSchema(spec.outputSchema)) {
    throw new TypeError(`workflow ${spec.name}: inputSchema and outputSchema are required zod schemas (the input and output are validated with them, and published)`);
  }
  if (spec.description !== undefined && typeof spec.description !== 'string') {
    throw new TypeError(`workflow ${spec.name}: description must be a string when given`);
  }
  if (spec.runTimeoutMs !== undefined && !(spec.runTimeoutMs > 0)) {
    throw new RangeError(`workflow ${spec.name}: runTimeoutMs must be a positive number`);
  }
  return Object.freeze({
    kind: 'workflow',
    name: spec.name,
    description: spec.description ?? '',
    inputSchema: spec.inputSchema as unknown as z.ZodType<z.output<IS>, z.input<IS>>,
    outputSchema: spec.outputSchema as unknown as z.ZodType<z.output<OS>>,
    fn: spec.fn as WorkflowDefinition<z.output<IS>, z.output<OS>>['fn'],
    runTimeoutMs: spec.runTimeoutMs,
  });
}

/** A zod schema, as far as running a workflow needs one: it parses. */
function isSchema(value: unknown): value is z.ZodType {
  return typeof value === 'object' && value !== null && typeof (value as { safeParse?: unknown }).safeParse === 'function';
}

export function isWorkflowDefinition(value: unknown): value is WorkflowDefinition {
  return typeof value === 'object' && value !== null && (value as { kind?: unknown }).kind === 'workflow';
}
