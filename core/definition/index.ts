/** The authoring API: what a workflow file imports from `flowgate`. Nothing here touches Node or an engine. */
export { workflow, isWorkflowDefinition, type WorkflowDefinition, type WorkflowSpec } from './workflow.js';
export { step, type StepSpec } from './step.js';
export { evaluator } from './evaluator.js';
export { isActivity, type Activity, type ActivityDefinition } from './activity.js';
export type { WorkflowContext, WorkflowInfo, WebhookRequest, ChildWorkflowOptions } from './context.js';
export type { RetryPolicy, RetryOptions } from './retry.js';
export { progress, InvalidProgressError, MAX_PROGRESS_FIELDS_BYTES, PROGRESS_BUFFER_SIZE } from './progress.js';
export {
  NonRetryableError,
  CancelledError,
  StepFailedError,
  ChildWorkflowFailedError,
  WebhookTimeoutError,
  FeedbackValidationError,
  NondeterminismError,
  OutboundAddressRefusedError,
} from './failures.js';
export {
  defineHooks,
  emit,
  type HooksDefinition,
  type HookRegistrar,
  type WorkflowDetails,
  type ActivityInfo,
  type Aggregations,
  type OutputActivityKind,
  type WorkflowEvent,
  type WorkflowErrorEvent,
  type ActivityEvent,
  type ActivityEndEvent,
  type ActivityErrorEvent,
  type ErrorEvent,
  type NamedEvent,
} from './hooks.js';
