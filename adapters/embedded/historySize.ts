import type { HistoryEvent } from '../../core/domain/history.js';
import { Payload } from './payload.js';

/**
 * Bytes of a run's history as JSON, counted as events are appended without encoding them again: a payload knows its
 * size; the rest of an event is small (ids, names, times, failures) and is estimated from its fields.
 */

/** `{"eventId":…,"type":"…","time":"2026-01-01T00:00:00.000Z","stepName":"…","attributes":{}}` without the names. */
export const EVENT_FRAME_BYTES = 80;

/** Two sizes of the same events: `logical`, what the history holds as JSON (each event in full, as Temporal counts
 * it), and `retained`, what keeping them costs (a payload shown by several events counted once). */
export interface EventSize {
  logical: number;
  retained: number;
}

/**
 * The size of `event`. `seen` holds the payloads already counted for the run: they add to `logical` again but not to
 * `retained`; new ones are added to it.
 */
export function eventSize(event: HistoryEvent, seen: Set<Payload>): EventSize {
  let logical = EVENT_FRAME_BYTES + event.type.length + (event.stepName?.length ?? 0);
  let retained = logical;
  for (const [key, value] of Object.entries(event.attributes)) {
    const size = valueSize(value, seen);
    logical += key.length + 4 + size.logical;
    retained += key.length + 4 + size.retained;
  }
  return { logical, retained };
}

/** The size of attributes added to an event (all small, never payloads). */
export function attributesBytes(attributes: Record<string, unknown>): number {
  let bytes = 0;
  for (const [key, value] of Object.entries(attributes)) bytes += key.length + 4 + valueSize(value, new Set()).logical;
  return bytes;
}

function valueSize(value: unknown, seen: Set<Payload>): EventSize {
  if (value instanceof Payload) {
    const logical = value.text === undefined ? 4 : value.bytes;
    if (seen.has(value)) return { logical, retained: 0 };
    seen.add(value);
    return { logical, retained: logical };
  }
  let bytes: number;
  if (typeof value === 'string') bytes = value.length + 2;
  else if (value === null || typeof value !== 'object') bytes = 8;
  // Objects here are made by the engine, not handed in (failures, mostly): small, and never on every event.
  else bytes = JSON.stringify(value)?.length ?? 4;
  return { logical: bytes, retained: bytes };
}

/** An event as readers see it: every payload decoded into a fresh copy. Events without payloads are shared. */
export function materialize(event: HistoryEvent): HistoryEvent {
  let attributes: Record<string, unknown> | undefined;
  for (const [key, value] of Object.entries(event.attributes)) {
    if (value instanceof Payload) (attributes ??= { ...event.attributes })[key] = value.value();
  }
  return attributes ? { ...event, attributes } : event;
}
