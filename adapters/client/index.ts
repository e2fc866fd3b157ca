/**
 * `flowgate/client`: a typed client of flowgate's HTTP API on undici (docs/client.md). It loads undici and nothing
 * else at run time; its types come from the server's own zod schemas and the user's workflow definitions.
 */
export { FlowgateClient, createFlowgateClient, type ClientOptions, type StartOptions, type RunSelector, type ResultOptions } from './client.js';
export { FlowgateApiError, FlowgateTimeoutError, type AnsweredRequest } from './clientErrors.js';
export type { RunOptions } from './runAndWait.js';
export type { ScheduleCalls } from './schedules.js';
export type { FollowEvent, FollowOptions } from './follow.js';
export type { RetryPolicy, TransportOptions } from './transport.js';
export { workflowRef, type WorkflowRef, type WorkflowTarget, type WorkflowInput, type WorkflowOutput, type TypedResult } from './workflowTypes.js';
export type * from './types.js';
