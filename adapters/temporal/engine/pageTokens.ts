import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { invalidPageToken } from './errors.js';

/**
 * Opaque page tokens around Temporal's own: the position plus a digest of the query it belongs to, HMAC-signed.
 * A forged, garbled or truncated token, or one replayed against another run, page size or filter, is a
 * ValidationError before Temporal is asked; Temporal's token inside is never shown to or taken from clients as is.
 */
export class PageTokens {
  private readonly key: Buffer;

  /** `secret`: shared by every API server behind one load balancer; random (per process) when absent. */
  constructor(secret?: string) {
    this.key = secret === undefined ? randomBytes(32) : createHash('sha256').update(secret).digest();
  }

  issue(scope: string, content: unknown): string {
    const body = Buffer.from(JSON.stringify({ s: digest(scope), c: content })).toString('base64url');
    return `${body}.${this.sign(body)}`;
  }

  /** The content stored in `token`, which must have been issued for `scope` and pass `isValid`. */
  read<T>(scope: string, token: string, isValid: (content: unknown) => content is T): T {
    const [body, signature, extra] = token.split('.');
    if (!body || !signature || extra !== undefined) throw invalidPageToken();
    const expected = Buffer.from(this.sign(body));
    const given = Buffer.from(signature);
    if (expected.length !== given.length || !timingSafeEqual(expected, given)) throw invalidPageToken();
    let parsed: { s?: unknown; c?: unknown };
    try {
      parsed = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as { s?: unknown; c?: unknown };
    } catch {
      throw invalidPageToken();
    }
    if (typeof parsed !== 'object' || parsed === null || parsed.s !== digest(scope) || !isValid(parsed.c)) throw invalidPageToken();
    return parsed.c;
  }

  private sign(body: string): string {
    return createHmac('sha256', this.key).update(body).digest('base64url');
  }
}

/** Temporal's next-page token (bytes) as a token field, and back. */
export function encodeTemporalToken(token: Uint8Array | null | undefined): string {
  return token && token.length > 0 ? Buffer.from(token).toString('base64url') : '';
}

export function decodeTemporalToken(token: string): Uint8Array | undefined {
  return token ? new Uint8Array(Buffer.from(token, 'base64url')) : undefined;
}

function digest(scope: string): string {
  return createHash('sha256').update(scope).digest('base64url').slice(0, 22);
}
