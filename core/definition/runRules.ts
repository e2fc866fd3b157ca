import type { z } from 'zod';
import type { SerializedFailure } from '../domain/run.js';
import { MAX_CATALOG_NAME_LENGTH, workflowIdProblem } from '../domain/ids.js';
import { fitsCharacters, hasUnpairedSurrogate } from '../domain/text.js';
import type { ChildWorkflowOptions, WebhookRequest } from './context.js';
import type { WorkflowDefinition } from './workflow.js';
import { FeedbackValidationError } from './failures.js';
import { thrownMessage, thrownName } from './thrownValues.js';

/*
 * Rules both engines apply to the workflow code they run, written once so the two cannot drift: the embedded engine
 * (adapters/embedded) and the Temporal workflow sandbox (adapters/temporal/sandbox) import them. Pure: the sandbox
 * bundles this file, so it uses no Node API.
 */

/**
 * What ctx.sleep accepts: milliseconds, 0 or more, finite. A due time of `now + Infinity` is kept as JSON's null: the
 * embedded engine fired it at once after a restart, and Temporal refuses it.
 */
export function checkSleepDuration(ms: number): void {
  if (typeof ms !== 'number' || !(ms >= 0) || !Number.isFinite(ms)) throw new RangeError(`sleep: ms must be a finite number >= 0, got ${String(ms)}`);
}

/** The workflow ctx.executeChild names, by definition or by name; a mistake in workflow code throws before anything starts. */
export function childWorkflowName(workflow: WorkflowDefinition | string): string {
  const childName = typeof workflow === 'string' ? workflow : workflow?.name;
  if (typeof childName !== 'string' || childName.length === 0) {
    throw new TypeError('executeChild: expected a workflow definition or a workflow name');
  }
  return childName;
}

/**
 * What a step call, a child's start and a continue-as-new hand the engine as input: a JSON value, or undefined (no
 * input). A function or a symbol, which JSON writes as nothing, became an undefined input on the embedded engine and
 * a payload Temporal cannot read (the next run's workflow task failing for good): refused here, as JSON itself refuses
 * a BigInt, before anything is recorded or sent.
 */
export function checkJsonInput(what: string, value: unknown): void {
  if (typeof value === 'function' || typeof value === 'symbol') throw new TypeError(`${what} must be a JSON value, got a ${typeof value}`);
}

/**
 * The workflow id and catalog a child starts with: ids and names the API could address. Temporal refuses an empty or
 * over-long id in the parent's workflow task, which then fails for good (the parent never closes), and runs a child
 * of catalog `''` in the parent's; the embedded engine started them. A mistake in workflow code: TypeError, before
 * the child starts.
 */
export function checkChildStart(workflowId: unknown, options: ChildWorkflowOptions): void {
  if (typeof workflowId !== 'string') throw new TypeError(`executeChild: workflowId must be a string, got ${typeof workflowId}`);
  const problem = workflowIdProblem(workflowId);
  if (problem) {
    const made = options.workflowId === undefined ? " (the default id, made of the parent's id and the child's name: give one in options.workflowId)" : '';
    throw new TypeError(`executeChild: ${problem}${made}`);
  }
  const { catalog } = options;
  if (catalog === undefined) return;
  if (typeof catalog !== 'string' || catalog.length === 0 || !fitsCharacters(catalog, MAX_CATALOG_NAME_LENGTH) || hasUnpairedSurrogate(catalog)) {
    throw new TypeError(`executeChild: catalog must be a non-empty string of at most ${MAX_CATALOG_NAME_LENGTH} characters (leave it out for the parent's), got ${typeof catalog === 'string' ? JSON.stringify(catalog.slice(0, 40)) : typeof catalog}`);
  }
}

/** What ctx.nonCancellable takes: the engines' own messages for anything else differ. */
export function checkNonCancellable(fn: unknown): void {
  if (typeof fn !== 'function') throw new TypeError(`nonCancellable: expected a function to run shielded from a stop, got ${fn === null ? 'null' : typeof fn}`);
}

/** A child's workflow id unless the call gives one: `<parent id>/<child name>-<n>`, n counting the run's child calls. */
export function defaultChildWorkflowId(parentWorkflowId: string, childName: string, ordinal: number): string {
  return `${parentWorkflowId}/${childName}-${ordinal}`;
}

/** What ctx.waitForWebhook accepts; a mistake in workflow code throws before anything is sent or awaited. */
export function checkWebhookRequest(request: WebhookRequest): void {
  if (typeof request !== 'object' || request === null) throw new TypeError('waitForWebhook: request must be an object');
  if (request.url !== undefined && (typeof request.url !== 'string' || request.url.length === 0)) {
    throw new TypeError('waitForWebhook: url must be a non-empty string');
  }
  // Any other scheme failed every attempt of the call (retried as the sender's own error) before the run failed.
  if (request.url !== undefined && !/^https?:\/\/[^\s/?#]/i.test(request.url)) {
    throw new TypeError(`waitForWebhook: url must be an http or https URL, got ${JSON.stringify(request.url.slice(0, 100))}`);
  }
  if (request.timeoutMs !== undefined && !(typeof request.timeoutMs === 'number' && request.timeoutMs > 0 && Number.isFinite(request.timeoutMs))) {
    throw new RangeError(`waitForWebhook: timeoutMs must be a finite positive number (leave it out to wait without a limit), got ${String(request.timeoutMs)}`);
  }
}

/**
 * The reply a webhook wait hands the workflow code: parsed by the workflow's feedbackSchema (defaults and transforms
 * apply), as is without one. Replayed waits parse their recorded reply again, with the same result.
 */
export function parseFeedback(workflowName: string, feedbackSchema: z.ZodType | undefined, payload: unknown): unknown {
  if (!feedbackSchema) return payload;
  const parsed = schemaVerdict(feedbackSchema, payload);
  if (parsed.success) return parsed.data;
  throw new FeedbackValidationError(`Invalid feedback for workflow ${workflowName}: ${describeIssues(parsed.issues)}`);
}

/** A schema issue as zod reports it. */
export interface SchemaIssue {
  path: PropertyKey[];
  message: string;
}

export type SchemaVerdict<T> = { success: true; data: T } | { success: false; issues: readonly SchemaIssue[] };

/**
 * What a workflow's or step's own schema says of a value. zod lets an exception thrown in a refinement or transform
 * out of safeParse; such a schema refuses the value here, its issue naming what it threw, so a mistake in a schema
 * fails the run or step it checks, alike on both engines, instead of the engine that runs it.
 */
export function schemaVerdict<T>(schema: z.ZodType<T>, value: unknown): SchemaVerdict<T> {
  try {
    const parsed = schema.safeParse(value);
    return parsed.success ? { success: true, data: parsed.data } : { success: false, issues: parsed.error.issues };
  } catch (error) {
    return { success: false, issues: [{ path: [], message: `the schema threw ${thrownName(error)}: ${thrownMessage(error)}` }] };
  }
}

/** Schema issues in one line, as the failure message of a run whose input or output did not validate. */
export function describeIssues(issues: readonly SchemaIssue[]): string {
  return issues.map((issue) => `${issue.path.map(String).join('.') || '(root)'}: ${issue.message}`).join('; ');
}

/** How a run fails whose input does not match its definition's inputSchema. */
export function invalidInputFailure(workflowName: string, issues: readonly SchemaIssue[]): SerializedFailure {
  return { name: 'ValidationError', message: `Invalid input for workflow ${workflowName}: ${describeIssues(issues)}` };
}

/** How a run fails whose output does not match its definition's outputSchema. */
export function invalidOutputFailure(workflowName: string, issues: readonly SchemaIssue[]): SerializedFailure {
  return { name: 'OutputValidationError', message: `Invalid output of workflow ${workflowName}: ${describeIssues(issues)}` };
}

/** How a run fails whose output JSON.stringify refuses (a cycle, a BigInt). */
export function outputNotJsonFailure(workflowName: string, error: unknown): SerializedFailure {
  const reason = thrownMessage(error);
  return { name: 'OutputValidationError', message: `Output of workflow ${workflowName} is not JSON: ${reason}` };
}
