import type { SerializedFailure } from '../domain/run.js';

/** What kind of activity an event is about (`outputActivityKind`, docs/hooks.md). */
export type OutputActivityKind = 'step' | 'evaluator' | 'internal_step';

/** The run an event belongs to (docs/hooks.md: workflowDetails). Times are epoch milliseconds. */
export interface WorkflowDetails {
  attempt: number;
  continuedFromExecutionRunId?: string;
  firstExecutionRunId: string;
  parent?: { runId: string; workflowId: string; namespace: string };
  root?: { runId: string; workflowId: string };
  runId: string;
  runStartTime: number;
  startTime: number;
  workflowId: string;
  workflowType: string;
}

/** The activity attempt an event belongs to. */
export interface ActivityInfo {
  /** The same for every attempt of one step call. */
  activityId: string;
  /** `<workflow>#<step>`. */
  activityType: string;
  name: string;
  attempt: number;
}

/** Per activity attempt, from the events its code caused (docs/hooks.md: total cost, http calls, tokens). */
export interface Aggregations {
  totalCost: number;
  httpCalls: number;
  tokens: number;
}

/** A step's aggregations over its attempts, as its trace entry records them: every attempt's cost was spent. */
export function addAggregations(total: Aggregations | undefined, attempt: Aggregations): Aggregations {
  if (!total) return { ...attempt };
  return { totalCost: total.totalCost + attempt.totalCost, httpCalls: total.httpCalls + attempt.httpCalls, tokens: total.tokens + attempt.tokens };
}

/** Every event: a UUID v4 and epoch milliseconds; `emit` callers may preset both. */
export interface EventEnvelope {
  eventId: string;
  eventDate: number;
}

export interface WorkflowEvent extends EventEnvelope {
  workflowDetails: WorkflowDetails;
}

export interface WorkflowErrorEvent extends WorkflowEvent {
  error: SerializedFailure;
}

export interface ActivityEvent extends WorkflowEvent {
  activityInfo: ActivityInfo;
  outputActivityKind: OutputActivityKind;
}

export interface ActivityEndEvent extends ActivityEvent {
  aggregations: Aggregations;
}

export interface ActivityErrorEvent extends ActivityEndEvent {
  error: SerializedFailure;
}

export type ErrorEvent =
  | (EventEnvelope & { source: 'runtime'; error: SerializedFailure })
  | (WorkflowEvent & { source: 'workflow'; error: SerializedFailure })
  | (ActivityEvent & { source: 'activity'; error: SerializedFailure });

/** A named event (`on(name, handler)`): the envelope of the activity that emitted it, plus its own fields. */
export type NamedEvent<F extends object = Record<string, unknown>> = ActivityEvent & F;

/** Fields of the named events flowgate knows; any other name carries the fields its emitter gives. */
export interface KnownEventFields {
  'http:request': {
    requestId: string;
    method: string;
    url: string;
    status: number | undefined;
    durationMs: number;
    outcome: 'success' | 'error' | 'failure';
  };
  /** `cost` feeds aggregations.totalCost. */
  'cost:http:request': { cost: number; [field: string]: unknown };
  /** `cost` feeds aggregations.totalCost, `tokens` (or inputTokens + outputTokens) aggregations.tokens. */
  'cost:llm:request': { cost: number; tokens?: number; inputTokens?: number; outputTokens?: number; [field: string]: unknown };
}

type Handler<E> = (event: E) => void | Promise<void>;
export type NamedEventHandler<N extends string> = Handler<NamedEvent<N extends keyof KnownEventFields ? KnownEventFields[N] : Record<string, unknown>>>;

export const HOOK_NAMES = [
  'onWorkflowStart',
  'onWorkflowEnd',
  'onWorkflowError',
  'onActivityStart',
  'onActivityEnd',
  'onActivityError',
  'onError',
] as const;
export type HookName = (typeof HOOK_NAMES)[number];

export interface HookPayloads {
  onWorkflowStart: WorkflowEvent;
  onWorkflowEnd: WorkflowEvent;
  onWorkflowError: WorkflowErrorEvent;
  onActivityStart: ActivityEvent;
  onActivityEnd: ActivityEndEvent;
  onActivityError: ActivityErrorEvent;
  onError: ErrorEvent;
}

/** What a hook file's register function receives. */
export interface HookRegistrar {
  onWorkflowStart(handler: Handler<WorkflowEvent>): void;
  onWorkflowEnd(handler: Handler<WorkflowEvent>): void;
  onWorkflowError(handler: Handler<WorkflowErrorEvent>): void;
  onActivityStart(handler: Handler<ActivityEvent>): void;
  onActivityEnd(handler: Handler<ActivityEndEvent>): void;
  onActivityError(handler: Handler<ActivityErrorEvent>): void;
  onError(handler: Handler<ErrorEvent>): void;
  on<N extends string>(name: N, handler: NamedEventHandler<N>): void;
}

export interface HooksDefinition {
  readonly kind: 'hooks';
  readonly register: (hooks: HookRegistrar) => void;
}

/**
 * A hook file's default export: `export default defineHooks((hooks) => { hooks.onActivityEnd(...) })`. Each worker
 * calls `register` with its own registrar, so nothing is global and a file may serve several workers.
 */
export function defineHooks(register: (hooks: HookRegistrar) => void): HooksDefinition {
  if (typeof register !== 'function') throw new TypeError('defineHooks: expected a function that registers hooks');
  return Object.freeze({ kind: 'hooks', register });
}

export function isHooksDefinition(value: unknown): value is HooksDefinition {
  return typeof value === 'object' && value !== null && (value as { kind?: unknown }).kind === 'hooks' && typeof (value as { register?: unknown }).register === 'function';
}

/** A runtime that runs activity code in this process and delivers the events it emits. */
export interface EventSink {
  /** False when the call is not made inside one of this runtime's activities. */
  emit(name: string, fields: Record<string, unknown>): boolean;
}

// A Symbol.for key on globalThis, so two copies of this module (built and source) still share the sinks.
const SINKS = Symbol.for('flowgate.eventSinks');
type Registry = { [SINKS]?: Set<EventSink> };
const sinks = (): Set<EventSink> => ((globalThis as Registry)[SINKS] ??= new Set());

/** Installs a sink; returns the function that removes it. */
export function addEventSink(sink: EventSink): () => void {
  sinks().add(sink);
  return () => sinks().delete(sink);
}

/**
 * Emits a named event from step or evaluator code (`cost:llm:request`, your own names). The runtime attaches the
 * workflow and activity; `eventId` and `eventDate` in `fields` override the generated ones. Outside an activity the
 * event has no run to belong to and is dropped; the return value says whether it was delivered.
 */
export function emit<N extends string>(name: N, fields: N extends keyof KnownEventFields ? KnownEventFields[N] & Partial<EventEnvelope> : Record<string, unknown>): boolean {
  if (typeof name !== 'string' || name.length === 0) throw new TypeError('emit: the event name must be a non-empty string');
  for (const sink of sinks()) if (sink.emit(name, (fields ?? {}) as Record<string, unknown>)) return true;
  return false;
}
