import { defaultPayloadConverter } from '@temporalio/client';
import type { Payload, Payloads, Timestamp } from './proto.js';

/** A protobuf int64 (`Long`), or a plain number or string, as a JS number. Event ids stay far below 2^53. */
export function toNumber(value: unknown): number {
  if (typeof value === 'number') return value;
  if (typeof value === 'string') return Number(value);
  if (typeof value === 'object' && value !== null && typeof (value as { toNumber?: unknown }).toNumber === 'function') {
    return (value as { toNumber(): number }).toNumber();
  }
  return 0;
}

/** A google.protobuf.Timestamp (or Duration) in milliseconds; undefined when absent. */
export function toMillis(value: Timestamp): number | undefined {
  if (!value) return undefined;
  return toNumber(value.seconds) * 1000 + Math.floor((value.nanos ?? 0) / 1_000_000);
}

export function toDate(value: Timestamp): Date | undefined {
  const ms = toMillis(value);
  return ms === undefined ? undefined : new Date(ms);
}

export function toIso(value: Timestamp): string {
  return new Date(toMillis(value) ?? 0).toISOString();
}

/** One payload through the default data converter (the one flowgate's worker uses): JSON in, JSON out. */
export function decodePayload(payload: Payload | null | undefined): unknown {
  if (!payload) return undefined;
  return defaultPayloadConverter.fromPayload(payload);
}

/** A payload decoded, or undefined when it is absent or does not decode (a record another client may have written). */
export function decodeIfPossible(payload: Payload | null | undefined): unknown {
  try {
    return decodePayload(payload);
  } catch {
    return undefined;
  }
}

/** The first payload of a list: flowgate workflows, steps and signals take and return exactly one value. */
export function decodeFirst(payloads: Payloads | null | undefined): unknown {
  return decodePayload(payloads?.payloads?.[0]);
}

/**
 * For display (history events): a payload this adapter cannot decode (another converter's encoding, an encrypted
 * codec) becomes null instead of failing the whole page. An `undefined` value (a step called without input, one that
 * returned nothing) stays undefined, so the event leaves the attribute out, as the embedded engine's does.
 */
export function decodeForDisplay(payloads: Payloads | null | undefined): unknown {
  try {
    return decodeFirst(payloads);
  } catch {
    return null;
  }
}
