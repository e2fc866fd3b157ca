import type { Digest } from '../../ports/digest.js';

/*
 * The digests a keyed request is known by (docs/idempotency.md). Starts and control requests name them the same way,
 * so the key a client sends is one key whichever record keeps it.
 */

/**
 * The Idempotency-Key of a request an API key sent: its id and the value, apart (a key value is printable ASCII, so
 * never holds the line break). Two API keys sending one value are two keys.
 */
export function ownKey(apiKeyId: string, key: string): string {
  return `${apiKeyId}\n${key}`;
}

/** Digest of the client's Idempotency-Key; the key itself is never stored. */
export function keyDigest(digest: Digest, key: string): string {
  return digest.uuidOf(['idempotency-key', key]);
}

/** Digest of what makes the request: a retry whose fingerprint differs reused the key for another request. */
export function fingerprintDigest(digest: Digest, request: unknown): string {
  return digest.uuidOf(['idempotency-fingerprint', canonicalJson(request)]);
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
