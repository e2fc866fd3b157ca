// Temporal protos built the way the client receives them: from plain objects through protobufjs encode and decode,
// so event ids and times are real `Long`s and enums numbers, exactly as a raw workflowService call returns them.
import proto from '@temporalio/proto';
import { defaultPayloadConverter } from '@temporalio/client';
import type { Failure, HistoryEvent, Payloads, WorkflowExecutionInfo } from '../../../adapters/temporal/engine/proto.js';

const { temporal } = proto;
const BASE_SECONDS = 1_767_225_600; // 2026-01-01T00:00:00Z

export const EventType = temporal.api.enums.v1.EventType;

/** One history event; `attributes` under the key of its type (`activityTaskScheduledEventAttributes`, …). */
export function rawEvent(eventId: number, eventType: keyof typeof EventType, attributes: Record<string, unknown> = {}): HistoryEvent {
  const message = temporal.api.history.v1.HistoryEvent.fromObject({
    eventId: String(eventId),
    eventTime: { seconds: String(BASE_SECONDS + eventId), nanos: 0 },
    eventType,
    ...attributes,
  });
  return temporal.api.history.v1.HistoryEvent.decode(temporal.api.history.v1.HistoryEvent.encode(message).finish());
}

/** ISO time of the event with this id (rawEvent puts event N at N seconds past the base). */
export function eventTime(eventId: number): string {
  return new Date((BASE_SECONDS + eventId) * 1000).toISOString();
}

export function payloads(...values: unknown[]): Payloads {
  return { payloads: values.map((value) => defaultPayloadConverter.toPayload(value)!) };
}

export function failure(object: Record<string, unknown>): Failure {
  const message = temporal.api.failure.v1.Failure.fromObject(object);
  return temporal.api.failure.v1.Failure.decode(temporal.api.failure.v1.Failure.encode(message).finish());
}

export function executionInfo(object: Record<string, unknown>): WorkflowExecutionInfo {
  const message = temporal.api.workflow.v1.WorkflowExecutionInfo.fromObject(object);
  return temporal.api.workflow.v1.WorkflowExecutionInfo.decode(temporal.api.workflow.v1.WorkflowExecutionInfo.encode(message).finish());
}

export function timestamp(isoTime: string): { seconds: string; nanos: number } {
  const ms = Date.parse(isoTime);
  return { seconds: String(Math.floor(ms / 1000)), nanos: (ms % 1000) * 1_000_000 };
}

/** A small run: started, one step (scheduled/started/completed) between workflow tasks, completed. */
export function arithmeticHistory(): HistoryEvent[] {
  return [
    rawEvent(1, 'EVENT_TYPE_WORKFLOW_EXECUTION_STARTED', {
      workflowExecutionStartedEventAttributes: { workflowType: { name: 'arithmetic' }, taskQueue: { name: 'main' }, input: payloads({ n: 1 }), firstExecutionRunId: 'run-1' },
    }),
    rawEvent(2, 'EVENT_TYPE_WORKFLOW_TASK_SCHEDULED'),
    rawEvent(3, 'EVENT_TYPE_WORKFLOW_TASK_STARTED'),
    rawEvent(4, 'EVENT_TYPE_WORKFLOW_TASK_COMPLETED'),
    rawEvent(5, 'EVENT_TYPE_ACTIVITY_TASK_SCHEDULED', {
      activityTaskScheduledEventAttributes: { activityId: '1', activityType: { name: 'arithmetic#add_one' }, input: payloads(1) },
    }),
    rawEvent(6, 'EVENT_TYPE_ACTIVITY_TASK_STARTED', { activityTaskStartedEventAttributes: { scheduledEventId: '5', attempt: 2 } }),
    rawEvent(7, 'EVENT_TYPE_ACTIVITY_TASK_COMPLETED', { activityTaskCompletedEventAttributes: { scheduledEventId: '5', startedEventId: '6', result: payloads(2) } }),
    rawEvent(8, 'EVENT_TYPE_WORKFLOW_TASK_SCHEDULED'),
    rawEvent(9, 'EVENT_TYPE_WORKFLOW_TASK_STARTED'),
    rawEvent(10, 'EVENT_TYPE_WORKFLOW_TASK_COMPLETED'),
    rawEvent(11, 'EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED', { workflowExecutionCompletedEventAttributes: { result: payloads({ result: 2 }) } }),
  ];
}
