/**
 * Idempotency-Key (docs/idempotency.md). A run started with a key carries this record in the engine (memory: its run
 * record; Temporal: its memo), so every API replica, and an API restarted, recognises a retry of the same start.
 */
export interface RunIdempotency {
  /** Digest of the client's key; the key itself is never stored. */
  key: string;
  /** Digest of the canonical request; a retry whose fingerprint differs reused the key for another request. */
  fingerprint: string;
  /** The engine's id of the start request: a start retried with it returns the run it started (Temporal's requestId). */
  requestId: string;
}

/**
 * The Idempotency-Key of a feedback, reset or terminate as an engine that outlives the API process keeps it
 * (Temporal: in the signal's header, the terminate's details, the reset's request id), so a retry sent to another
 * API replica is recognised too.
 */
export interface RequestIdempotency {
  /** Digest of the client's key. */
  key: string;
  /** Digest of the canonical request. */
  fingerprint: string;
  /** How long after the request the engine still answers a retry of it (the retention). */
  retentionMs: number;
}

/** The answer to a keyed request, and when its stored copy expires (the `Idempotency-Expires` header). */
export interface Idempotent<T> {
  answer: T;
  expiresAt: Date;
}

/**
 * JSON with object keys sorted at every depth, so two bodies that differ only in key order have one fingerprint.
 * Only called on values that came from JSON (validated request bodies).
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const entries = Object.keys(value)
    .filter((key) => (value as Record<string, unknown>)[key] !== undefined)
    .sort()
    .map((key) => `${JSON.stringify(key)}:${canonicalJson((value as Record<string, unknown>)[key])}`);
  return `{${entries.join(',')}}`;
}
