import type { RunIdempotency } from '../../../core/domain/idempotency.js';
import type { Payload } from './proto.js';
import { decodeIfPossible } from './values.js';

/** Memo key of a run started with an Idempotency-Key: its RunIdempotency, read back by describe on any API replica. */
export const IDEMPOTENCY_MEMO_KEY = 'flowgate.idempotency';

/** The `memo` start option (the client encodes it with the default converter, which decodePayload reads). */
export function idempotencyMemo(idempotency: RunIdempotency): Record<string, unknown> {
  const { key, fingerprint, requestId, startCallId } = idempotency;
  return { [IDEMPOTENCY_MEMO_KEY]: { key, fingerprint, requestId, ...(startCallId === undefined ? {} : { startCallId }) } };
}

/** The record in a described run's memo; undefined when absent or not one of ours. */
export function idempotencyOf(fields: { [key: string]: Payload } | null | undefined): RunIdempotency | undefined {
  const { key, fingerprint, requestId, startCallId } = (decodeIfPossible(fields?.[IDEMPOTENCY_MEMO_KEY]) ?? {}) as Partial<Record<keyof RunIdempotency, unknown>>;
  if (typeof key !== 'string' || typeof fingerprint !== 'string' || typeof requestId !== 'string') return undefined;
  // Runs started before the memo carried it have none: a start answered with one of them did not make it.
  return { key, fingerprint, requestId, ...(typeof startCallId === 'string' ? { startCallId } : {}) };
}
