/**
 * Temporal's API protos, in one place. @temporalio/proto is CommonJS: its namespaces come from the default export.
 * Responses of raw `workflowService` calls are decoded protobuf messages: enums are numbers, 64-bit integers `Long`.
 */
import proto from '@temporalio/proto';
import type { temporal } from '@temporalio/proto';

export const enums = proto.temporal.api.enums.v1;
export const EventType = enums.EventType;

export type HistoryEvent = temporal.api.history.v1.IHistoryEvent;
export type Failure = temporal.api.failure.v1.IFailure;
export type Payload = temporal.api.common.v1.IPayload;
export type Payloads = temporal.api.common.v1.IPayloads;
export type WorkflowExecutionInfo = temporal.api.workflow.v1.IWorkflowExecutionInfo;
export type WorkflowService = temporal.api.workflowservice.v1.WorkflowService;
export type Timestamp = { seconds?: unknown; nanos?: number | null } | null | undefined;
