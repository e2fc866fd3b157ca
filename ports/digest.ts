import { token } from './token.js';

/**
 * Deterministic ids from names: the same parts give the same UUID in every process, so API replicas (and a
 * restarted API) agree on the workflow id an Idempotency-Key derives and on a request's fingerprint.
 */
export interface Digest {
  /** A UUID (RFC 9562 version 8) made of a cryptographic hash of `parts`; parts are joined unambiguously. */
  uuidOf(parts: readonly string[]): string;
}

export const DIGEST = token<Digest>('Digest');
