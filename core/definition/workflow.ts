import type { z } from 'zod';
import type { WorkflowContext } from './context.js';
import { assertDefinitionName } from './names.js';

/**
 * `I` is the input the workflow's code gets, `In` what a caller may send (before the schema's defaults apply), `F` the
 * reply its webhook waits get.
 */
export interface WorkflowDefinition<I = unknown, O = unknown, In = I, F = unknown> {
  readonly kind: 'workflow';
  readonly name: string;
  readonly description: string;
  readonly inputSchema: z.ZodType<I, In>;
  readonly outputSchema: z.ZodType<O>;
  /** What a reply to its webhook waits (POST /workflow/feedback `payload`) must match; undefined: any JSON object. */
  readonly feedbackSchema: z.ZodType<F> | undefined;
  /*
   * A method, so its parameters are compared both ways: a definition whose replies are typed is still a
   * WorkflowDefinition<any, any> (a worker's list), which is called with a context whose replies are `unknown`.
   */
  fn(input: I, ctx: WorkflowContext<F>): Promise<O>;
  /** A run still open after this long ends as timed_out. */
  readonly runTimeoutMs: number | undefined;
}

export interface WorkflowSpec<IS extends z.ZodType, OS extends z.ZodType, FS extends z.ZodType = z.ZodUnknown> {
  name: string;
  /** What the workflow does, as GET /workflow/list publishes it. @default '' */
  description?: string | undefined;
  /** Required: a run's input is validated with it before the run starts, and GET /workflow/list publishes it. */
  inputSchema: IS;
  /** Required: a run's output is validated with it, and GET /workflow/list publishes it. */
  outputSchema: OS;
  /**
   * The reply of its webhook waits: POST /workflow/feedback refuses a `payload` that does not match (400, the run
   * keeps waiting), and `ctx.waitForWebhook()` returns it parsed and typed. Published as JSON Schema with the others.
   * @default any JSON object, returned as `unknown`
   */
  feedbackSchema?: FS | undefined;
  fn: (input: z.output<IS>, ctx: WorkflowContext<z.output<FS>>) => Promise<z.input<OS>>;
  runTimeoutMs?: number | undefined;
}

/** Defines a workflow. The module that calls this should import its steps, not define them (see docs/authoring.md). */
export function workflow<IS extends z.ZodType, OS extends z.ZodType, FS extends z.ZodType = z.ZodUnknown>(
  spec: WorkflowSpec<IS, OS, FS>,
): WorkflowDefinition<z.output<IS>, z.output<OS>, z.input<IS>, z.output<FS>> {
  assertDefinitionName('workflow', spec.name);
  if (typeof spec.fn !== 'function') throw new TypeError(`workflow ${spec.name}: fn must be a function`);
  if (!isSchema(spec.inputSchema) || !isSchema(spec.outputSchema)) {
    throw new TypeError(`workflow ${spec.name}: inputSchema and outputSchema are required zod schemas (the input and output are validated with them, and published)`);
  }
  if (spec.feedbackSchema !== undefined && !isSchema(spec.feedbackSchema)) {
    throw new TypeError(`workflow ${spec.name}: feedbackSchema must be a zod schema`);
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
    feedbackSchema: spec.feedbackSchema as z.ZodType<z.output<FS>> | undefined,
    fn: spec.fn as WorkflowDefinition<z.output<IS>, z.output<OS>, z.input<IS>, z.output<FS>>['fn'],
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
