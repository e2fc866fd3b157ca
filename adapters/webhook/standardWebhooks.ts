import { createHmac } from 'node:crypto';

/*
 * The Standard Webhooks signature scheme (version 1.0.0 of the specification), symmetric form, which
 * webhook calls and run callbacks carry (docs/callbacks.md): the headers `webhook-id`, `webhook-timestamp` and
 * `webhook-signature: v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<body>">`, keyed with the bytes of a `whsec_` secret.
 */

/** How the specification serialises a symmetric secret: this prefix, then the key's bytes in base64. */
export const WEBHOOK_SECRET_PREFIX = 'whsec_';
/** The specification's bounds of a symmetric key: random, at least 192 bits, at most 512. */
export const MIN_WEBHOOK_KEY_BYTES = 24;
export const MAX_WEBHOOK_KEY_BYTES = 64;

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/**
 * Why `secret` is not a Standard Webhooks secret, or undefined when it is one. Never quotes the secret. A string
 * without the prefix is refused rather than used as it is: the specification's verifiers read any secret as base64
 * (the reference libraries strip an optional prefix and decode the rest), so a raw string would key receivers and
 * flowgate differently.
 */
export function webhookSecretProblem(secret: string): string | undefined {
  const form = `${WEBHOOK_SECRET_PREFIX} followed by the base64 of ${MIN_WEBHOOK_KEY_BYTES} to ${MAX_WEBHOOK_KEY_BYTES} random bytes`;
  if (!secret.startsWith(WEBHOOK_SECRET_PREFIX)) return `must be a Standard Webhooks secret, ${form} (docs/callbacks.md says how to make one, and how to keep the key of a secret of the old form)`;
  const encoded = secret.slice(WEBHOOK_SECRET_PREFIX.length);
  if (encoded === '' || !BASE64.test(encoded)) return `is not ${form}: what follows ${WEBHOOK_SECRET_PREFIX} is not padded base64`;
  const bytes = Buffer.from(encoded, 'base64').length;
  if (bytes < MIN_WEBHOOK_KEY_BYTES || bytes > MAX_WEBHOOK_KEY_BYTES) return `is not ${form}: its key has ${bytes} bytes`;
  return undefined;
}

/** The HMAC key a `whsec_` secret stands for; throws RangeError, naming the problem, for anything else. */
export function webhookSecretKey(secret: string): Buffer {
  const problem = webhookSecretProblem(secret);
  if (problem) throw new RangeError(`webhook signing secret ${problem}`);
  return Buffer.from(secret.slice(WEBHOOK_SECRET_PREFIX.length), 'base64');
}

/**
 * The `Idempotency-Key` header of a call whose key is `idempotencyKey`: the key itself, with `%`, spaces and every
 * character outside printable ASCII percent-encoded (UTF-8). The key holds the run's workflowId, which callers choose,
 * and a header cannot carry a character past U+00FF at all (the call would fail on every attempt); one below it would
 * reach the receiver in an encoding nobody agreed on. Escaping `%` too keeps two workflowIds from sharing a key.
 * Usual workflowIds (UUIDs, `order-42`, `order.42`) are sent as they are (docs/callbacks.md).
 */
export function idempotencyKeyHeader(idempotencyKey: string): string {
  return percentEncoded(idempotencyKey, /[^\x21-\x7e]|%/gu);
}

/**
 * The `webhook-id` of a call whose Idempotency-Key is `idempotencyKey`: as the Idempotency-Key header, and with `.`
 * escaped as well, so `decodeURIComponent` gives the key back. Stable across attempts as the key is. Unescaped, a `.`
 * in the workflowId would let a signed `<id>.<timestamp>.<body>` be read with another split (the specification asks
 * for ids without one).
 */
export function webhookMessageId(idempotencyKey: string): string {
  return percentEncoded(idempotencyKey, /[^\x21-\x7e]|[%.]/gu);
}

function percentEncoded(text: string, escaped: RegExp): string {
  return text.replace(escaped, (character) =>
    [...Buffer.from(character, 'utf8')].map((byte) => `%${byte.toString(16).toUpperCase().padStart(2, '0')}`).join(''),
  );
}

/** One `v1,<base64>` signature of the call `messageId` sent at `timestamp` (epoch seconds) with `body`. */
export function standardWebhookSignature(key: Uint8Array, messageId: string, timestamp: number, body: string): string {
  return `v1,${createHmac('sha256', key).update(`${messageId}.${timestamp}.${body}`).digest('base64')}`;
}

/**
 * The `X-Flowgate-Signature` of releases before Standard Webhooks, sent with WEBHOOK_LEGACY_SIGNATURE=on (deprecated):
 * `sha256=` and the hex HMAC-SHA256 of `<timestamp>.<body>`, keyed with the same bytes as the Standard Webhooks
 * signature (an old secret converted to `whsec_` + base64 of its text therefore signs exactly as before).
 */
export function legacyWebhookSignature(key: Uint8Array, timestamp: number, body: string): string {
  return `sha256=${createHmac('sha256', key).update(`${timestamp}.${body}`).digest('hex')}`;
}
