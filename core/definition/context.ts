import type { RelatedRun } from '../domain/run.js';
import type { WorkflowDefinition } from './workflow.js';

/** Facts about the running workflow, the same on every engine. */
export interface WorkflowInfo {
  workflowId: string;
  runId: string;
  workflowName: string;
  catalog: string;
  firstRunId: string;
  continuedFromRunId?: string | undefined;
  parent?: RelatedRun | undefined;
  root?: RelatedRun | undefined;
  startedAt: Date;
}

export interface WebhookRequest {
  /** Where to POST the request before waiting (docs/api.md, "Webhook calls made by workflows"). */
  url?: string | undefined;
  /** The `payload` field of that call. */
  payload?: unknown;
  /** Give up waiting after this long and fail with WebhookTimeoutError. */
  timeoutMs?: number | undefined;
}

export interface ChildWorkflowOptions {
  /** Defaults to `<parent workflowId>/<child workflow name>-<n>`: unique per call, stable across replays. */
  workflowId?: string | undefined;
  /** Defaults to the parent's catalog. */
  catalog?: string | undefined;
}

/**
 * ctx.waitForWebhook. With a `feedbackSchema` the reply is that schema's output. Without one it is `unknown`, or what
 * the type argument says: an unchecked cast, kept for workflows written before feedbackSchema.
 */
export type WaitForWebhook<F> = unknown extends F
  ? <T = unknown>(request?: WebhookRequest) => Promise<T>
  : (request?: WebhookRequest) => Promise<F>;

/**
 * What a workflow function can do besides calling steps. It is handed to the workflow function, not imported,
 * so the same workflow module runs on any engine without a global dispatcher. `F` is the reply of its webhook waits
 * (the workflow's feedbackSchema).
 */
export interface WorkflowContext<F = unknown> {
  readonly info: WorkflowInfo;
  /** True once a stop (cancel) was requested for this run. */
  readonly cancellationRequested: boolean;
  /** A durable timer. */
  sleep(ms: number): Promise<void>;
  /**
   * Optionally POSTs to a webhook target, then waits for the reply sent through POST /workflow/feedback, parsed by the
   * workflow's feedbackSchema when it has one.
   */
  readonly waitForWebhook: WaitForWebhook<F>;
  /** Ends this run as continued_as_new and starts a fresh run of the same workflow with `input`. */
  continueAsNew(input: unknown): Promise<never>;
  /** Runs another workflow as a child and waits for its output. */
  executeChild<O = unknown>(
    workflow: WorkflowDefinition<any, O> | string,
    input: unknown,
    options?: ChildWorkflowOptions,
  ): Promise<O>;
  /** Runs `fn` shielded from cancellation: the place for clean-up steps after a stop. */
  nonCancellable<T>(fn: () => Promise<T>): Promise<T>;
}
