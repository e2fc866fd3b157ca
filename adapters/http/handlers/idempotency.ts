import { z } from 'zod';
import type { Idempotent } from '../../../core/domain/idempotency.js';
import type { RequestHeaderDoc } from '../route.js';
import { IdempotencyKeySchema } from '../schemas/requests.js';
import type { RequestHeaders } from '../types.js';
import { parseRequestPart } from '../validation.js';

/** The request header of POST /workflow, /workflow/run, /workflow/feedback, reset and terminate (docs/idempotency.md). */
export const IDEMPOTENCY_KEY_HEADER: RequestHeaderDoc = {
  name: 'Idempotency-Key',
  description: IdempotencyKeySchema.meta()?.description ?? '',
  schema: IdempotencyKeySchema,
};

const KeyHeaderSchema = z.object({ 'idempotency-key': IdempotencyKeySchema.optional() });

/** The request's Idempotency-Key, or undefined without one; 400 ValidationError when malformed or sent twice. */
export function idempotencyKeyOf(headers: RequestHeaders): string | undefined {
  const value = headers['idempotency-key'];
  // Sent twice: the joined value has a space, which no key has, so it fails as ambiguous instead of picking one.
  const key = typeof value === 'string' || value === undefined ? value : value.join(', ');
  return parseRequestPart(KeyHeaderSchema, { 'idempotency-key': key }, 'header')['idempotency-key'];
}

/** `Idempotency-Expires` (an HTTP-date) beside any other headers of the answer. */
export function withExpiry(answer: Idempotent<unknown>, headers: Record<string, string> = {}): Record<string, string> {
  return { ...headers, 'idempotency-expires': answer.expiresAt.toUTCString() };
}
