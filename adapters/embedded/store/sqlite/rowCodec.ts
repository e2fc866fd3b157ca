import { CancelledError, ChildWorkflowFailedError, failureToError, serializeFailure, StepFailedError, WebhookTimeoutError } from '../../../../core/definition/failures.js';
import type { HistoryEvent } from '../../../../core/domain/history.js';
import { JSON_TEXT } from '../../../../core/domain/json.js';
import type { RunDescription, SerializedFailure } from '../../../../core/domain/run.js';
import type { RunStatus } from '../../../../core/domain/status.js';
import type { CommandKind, CommandOutcome, CommandProgress, CommandRecord } from '../../commandLog.js';
import { EVENT_FRAME_BYTES } from '../../historySize.js';
import { Payload } from '../../payload.js';
import type { StepTrace } from '../../stepTrace.js';

/**
 * How runs, events and commands become rows and back. Payloads are written as the JSON text the engine already holds;
 * an event's attributes are one JSON object with its payloads inline, so a reader's page is parsed once. What the
 * engine itself reads back (a restart, a reset) gets its payloads as Payloads again.
 */

/** Event attributes that hold payloads (the engine keeps them as Payloads: payload.ts). */
const PAYLOAD_ATTRIBUTES = ['input', 'output', 'payload'] as const;

export interface EventRow {
  event_id: number;
  type: string;
  time: string;
  step_name: string | null;
  attributes: string;
}

export interface RunRow {
  seq: number;
  run_id: string;
  workflow_id: string;
  workflow_name: string;
  catalog: string;
  status: string;
  started_at: number;
  closed_at: number | null;
  first_run_id: string;
  chain_started_at: number;
  keyed: number;
  details: string;
  input: string | null;
  chain_input: string | null;
  output: string | null;
  failure: string | null;
  continued_to: string | null;
  /** Schema version 2; undefined in rows read before the migration ran (never, once opened). */
  started_by?: string | null;
  schedule_id?: string | null;
}

/** What a run row's `details` holds: the small, rarely read parts of its description, and its callback. */
interface RunDetails {
  continuedFromRunId?: string;
  parent?: RunDescription['parent'];
  root?: RunDescription['root'];
  idempotency?: RunDescription['idempotency'];
  rerunOf?: RunDescription['rerunOf'];
  callback?: { url: string; retryForMs: number };
}

/** JSON of an event's attributes, payloads inline; attributes without a value (an `undefined` payload) are left out. */
export function encodeAttributes(attributes: Record<string, unknown>): string {
  const parts: string[] = [];
  for (const [key, value] of Object.entries(attributes)) {
    const text = value instanceof Payload ? value.text : JSON.stringify(value);
    if (text !== undefined) parts.push(`${JSON.stringify(key)}:${text}`);
  }
  return `{${parts.join(',')}}`;
}

/** An event's bytes as JSON, as the history counts them (historySize.ts): what a page's byte budget is counted in. */
export function storedEventBytes(row: EventRow): number {
  return EVENT_FRAME_BYTES + row.type.length + (row.step_name?.length ?? 0) + Buffer.byteLength(row.attributes, 'utf8');
}

/**
 * An event as readers get it, read from its row without decoding it: it carries its JSON text (JSON_TEXT), which an
 * answer writes as it is, and its attributes are parsed only when something reads them. A history page or stream of
 * large events is then sent as the stored text, not parsed and serialised again for each reader.
 */
export function storedEventForReader(row: EventRow): HistoryEvent {
  const { event_id: eventId, type, time, step_name: stepName, attributes: text } = row;
  const event = { eventId, type, time, ...(stepName === null ? {} : { stepName }) } as HistoryEvent;
  const keep = (attributes: Record<string, unknown>): void => {
    Object.defineProperty(event, 'attributes', { value: attributes, writable: true, enumerable: true, configurable: true });
  };
  Object.defineProperty(event, 'attributes', {
    get: () => {
      const attributes = JSON.parse(text) as Record<string, unknown>;
      keep(attributes);
      return attributes;
    },
    set: keep,
    enumerable: true,
    configurable: true,
  });
  const json = `{"eventId":${eventId},"type":${JSON.stringify(type)},"time":${JSON.stringify(time)}${stepName === null ? '' : `,"stepName":${JSON.stringify(stepName)}`},"attributes":${text}}`;
  Object.defineProperty(event, JSON_TEXT, { value: json });
  return event;
}

/** An event as readers get it: payloads decoded. */
export function eventForReader(row: EventRow): HistoryEvent {
  return {
    eventId: row.event_id,
    type: row.type,
    time: row.time,
    ...(row.step_name === null ? {} : { stepName: row.step_name }),
    attributes: JSON.parse(row.attributes) as Record<string, unknown>,
  };
}

/** An event as the engine keeps it: payload attributes as Payloads. */
export function eventForEngine(row: EventRow): HistoryEvent {
  const event = eventForReader(row);
  for (const key of PAYLOAD_ATTRIBUTES) {
    if (key in event.attributes) event.attributes[key] = Payload.of(event.attributes[key]);
  }
  return event;
}

export function payloadText(payload: Payload): string | null {
  return payload.text ?? null;
}

/** The row's columns besides its events and commands, as an INSERT writes them (status `running`). */
export function runRowValues(description: RunDescription, sequence: number, chainStartedAt: Date, input: Payload, chainInput: Payload, callback: RunDetails['callback']): (string | number | null)[] {
  const { continuedFromRunId, parent, root, idempotency, rerunOf } = description;
  const details: RunDetails = {
    ...(continuedFromRunId ? { continuedFromRunId } : {}),
    ...(parent ? { parent } : {}),
    ...(root ? { root } : {}),
    ...(idempotency ? { idempotency } : {}),
    ...(rerunOf ? { rerunOf } : {}),
    ...(callback ? { callback: { url: callback.url, retryForMs: callback.retryForMs } } : {}),
  };
  return [
    sequence,
    description.runId,
    description.workflowId,
    description.workflowName,
    description.catalog,
    description.status,
    description.startedAt.getTime(),
    description.firstRunId,
    chainStartedAt.getTime(),
    idempotency ? 1 : 0,
    JSON.stringify(details),
    payloadText(input),
    // A chain's first run is its own chain's input; the others carry the first run's (it may be gone).
    description.firstRunId === description.runId ? null : payloadText(chainInput),
    description.startedBy ?? null,
    description.scheduleId ?? null,
  ];
}

export function descriptionOf(row: RunRow): RunDescription {
  const details = JSON.parse(row.details) as RunDetails;
  return {
    workflowId: row.workflow_id,
    runId: row.run_id,
    workflowName: row.workflow_name,
    catalog: row.catalog,
    status: row.status as RunStatus,
    startedAt: new Date(row.started_at),
    closedAt: row.closed_at === null ? null : new Date(row.closed_at),
    firstRunId: row.first_run_id,
    ...(details.continuedFromRunId ? { continuedFromRunId: details.continuedFromRunId } : {}),
    ...(details.parent ? { parent: details.parent } : {}),
    ...(details.root ? { root: details.root } : {}),
    ...(details.idempotency ? { idempotency: details.idempotency } : {}),
    ...(details.rerunOf ? { rerunOf: details.rerunOf } : {}),
    ...(row.started_by === null || row.started_by === undefined ? {} : { startedBy: row.started_by }),
    ...(row.schedule_id === null || row.schedule_id === undefined ? {} : { scheduleId: row.schedule_id }),
  };
}

export function callbackOf(row: RunRow): RunDetails['callback'] {
  return (JSON.parse(row.details) as RunDetails).callback;
}

export function chainInputText(row: RunRow): string | null {
  return row.first_run_id === row.run_id ? row.input : row.chain_input;
}

/**
 * An error a command handed to workflow code, as stored: the engine's own errors by what they carry, so workflow code
 * meets the same class after a restart (`instanceof StepFailedError` keeps working); anything else by name and message.
 */
type StoredError =
  | { type: 'step'; activityType: string; failure: SerializedFailure }
  | { type: 'child'; childWorkflowId: string; childRunId: string; status: string; failure: SerializedFailure | null }
  | { type: 'cancelled'; message: string }
  | { type: 'webhook_timeout'; timeoutMs: number }
  | { type: 'error'; failure: SerializedFailure };

function storedError(error: unknown): StoredError {
  if (error instanceof StepFailedError) return { type: 'step', activityType: error.activityType, failure: error.failure };
  if (error instanceof ChildWorkflowFailedError) {
    return { type: 'child', childWorkflowId: error.childWorkflowId, childRunId: error.childRunId, status: error.status, failure: error.failure };
  }
  if (error instanceof CancelledError) return { type: 'cancelled', message: error.message };
  if (error instanceof WebhookTimeoutError) return { type: 'webhook_timeout', timeoutMs: error.timeoutMs };
  return { type: 'error', failure: serializeFailure(error) };
}

function errorOf(stored: StoredError): unknown {
  switch (stored.type) {
    case 'step':
      return new StepFailedError(stored.activityType, stored.failure);
    case 'child':
      return new ChildWorkflowFailedError(stored.childWorkflowId, stored.childRunId, stored.status, stored.failure);
    case 'cancelled':
      return new CancelledError(stored.message);
    case 'webhook_timeout':
      return new WebhookTimeoutError(stored.timeoutMs);
    default:
      return failureToError(stored.failure);
  }
}

/** A command as stored. A step's trace leaves out its input and output: its events hold them. */
interface StoredCommand {
  k: CommandKind;
  n: string;
  a: number;
  c?: number;
  e?: number;
  /** Outcome: `v` the value's JSON (absent for `undefined`), or `x` the error. */
  o?: { ok: true; v?: string } | { ok: false; x: StoredError };
  f?: true;
  p?: CommandProgress;
  t?: Omit<StepTrace, 'input' | 'output'>;
}

export function encodeCommand(record: CommandRecord): string {
  const { outcome, trace } = record;
  const stored: StoredCommand = {
    k: record.kind,
    n: record.name,
    a: record.calledAfter,
    ...(record.completion === undefined ? {} : { c: record.completion }),
    ...(record.completionEventId === undefined ? {} : { e: record.completionEventId }),
    ...(outcome ? { o: outcome.ok ? (outcome.value.text === undefined ? { ok: true } : { ok: true, v: outcome.value.text }) : { ok: false, x: storedError(outcome.error) } } : {}),
    ...(record.consumedFeedback ? { f: true } : {}),
    ...(record.progress ? { p: record.progress } : {}),
  };
  if (trace) {
    const { input: _input, output: _output, ...rest } = trace;
    stored.t = rest;
  }
  return JSON.stringify(stored);
}

/** A stored command, its step trace completed from the run's events (`events[id - 1]` is event `id`). */
export function decodeCommand(index: number, body: string, events: readonly HistoryEvent[]): CommandRecord {
  const stored = JSON.parse(body) as StoredCommand;
  let outcome: CommandOutcome | undefined;
  if (stored.o) outcome = stored.o.ok ? { ok: true, value: Payload.fromText(stored.o.v) } : { ok: false, error: errorOf(stored.o.x) };
  const record: CommandRecord = {
    index,
    kind: stored.k,
    name: stored.n,
    calledAfter: stored.a,
    ...(stored.c === undefined ? {} : { completion: stored.c }),
    ...(stored.e === undefined ? {} : { completionEventId: stored.e }),
    ...(outcome ? { outcome } : {}),
    ...(stored.f ? { consumedFeedback: true } : {}),
    ...(stored.p ? { progress: stored.p } : {}),
  };
  if (stored.t) {
    const stepEventId = stored.p?.kind === 'step' ? stored.p.stepEventId : 0;
    const input = events[stepEventId - 1]?.attributes.input;
    record.trace = {
      ...stored.t,
      input: input instanceof Payload ? input : Payload.UNDEFINED,
      output: outcome?.ok ? outcome.value : null,
    };
  }
  return record;
}
