import { z } from 'zod';
import type { IdempotencyOptions } from '../../../core/api/requests.js';
import type { RequestHeaderDoc } from '../route.js';
import { IdempotencyKeySchema } from '../schemas/requests.js';
import type { RequestHeaders } from '../types.js';
import { parseRequestPart } from '../validation.js';

/** The request header of POST /workflow, /workflow/run, /workflow/feedback, reset, terminate and rerun (docs/idempotency.md). */
export const IDEMPOTENCY_KEY_HEADER: RequestHeaderDoc = {
  name: 'Idempotency-Key',
  description: IdempotencyKeySchema.meta()?.description ?? '',
  schema: IdempotencyKeySchema,
};

const KeyHeaderSchema = z.object({ 'idempotency-key': IdempotencyKeySchema.optional() });

/**
 * The request's Idempotency-Key as the API takes it: `{}` without one. 400 ValidationError when malformed or sent
 * twice.
 */
export function idempotencyOf(headers: RequestHeaders): IdempotencyOptions {
  const value = headers['idempotency-key'];
  // Sent twice: the joined value has a space, which no key has, so it fails as ambiguous instead of picking one.
  const joined = typeof value === 'string' || value === undefined ? value : value.join(', ');
  const key = parseRequestPart(KeyHeaderSchema, { 'idempotency-key': joined }, 'header')['idempotency-key'];
  return key === undefined ? {} : { idempotencyKey: key };
}

/** `Idempotency-Expires` (an HTTP-date) beside any other headers, when the answer was kept for a key. */
export function withExpiry(expiresAt: Date | undefined, headers: Record<string, string> = {}): Record<string, string> {
  return expiresAt === undefined ? headers : { ...headers, 'idempotency-expires': expiresAt.toUTCString() };
}
