import type { RunIdempotency } from '../../../core/domain/idempotency.js';
import type { Payload } from './proto.js';
import { decodeIfPossible } from './values.js';

/** Memo key of a run started with an Idempotency-Key: its RunIdempotency, read back by describe on any API replica. */
export const IDEMPOTENCY_MEMO_KEY = 'flowgate.idempotency';

/** The `memo` start option (the client encodes it with the default converter, which decodePayload reads). */
export function idempotencyMemo(idempotency: RunIdempotency): Record<string, unknown> {
  return { [IDEMPOTENCY_MEMO_KEY]: { key: idempotency.key, fingerprint: idempotency.fingerprint, requestId: idempotency.requestId } };
}

/** The record in a described run's memo; undefined when absent or not one of ours. */
export function idempotencyOf(fields: { [key: string]: Payload } | null | undefined): RunIdempotency | undefined {
  const { key, fingerprint, requestId } = (decodeIfPossible(fields?.[IDEMPOTENCY_MEMO_KEY]) ?? {}) as Partial<Record<keyof RunIdempotency, unknown>>;
  if (typeof key !== 'string' || typeof fingerprint !== 'string' || typeof requestId !== 'string') return undefined;
  return { key, fingerprint, requestId };
}
