import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { invalidPageToken } from '../core/domain/errors.js';

/**
 * Opaque page tokens, both engines': an engine's position (its own payload type) plus a digest of the query it belongs
 * to, HMAC-signed. A forged, garbled or truncated token, or one replayed against another query, run, page size or
 * filter, is the core's invalidPageToken before the engine reads anything; what an engine keeps inside (a store
 * position, Temporal's own token) is never shown to or taken from clients as is.
 */
export class PageTokens {
  private readonly key: Uint8Array;

  /**
   * `secret`: a key as bytes (the embedded durable store keeps one with its runs, so a token outlives a restart), or a
   * passphrase shared by every API server behind one load balancer (Temporal); random, per process, when absent.
   */
  constructor(secret?: string | Uint8Array) {
    this.key = secret === undefined ? randomBytes(32) : typeof secret === 'string' ? createHash('sha256').update(secret).digest() : secret;
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

function digest(scope: string): string {
  return createHash('sha256').update(scope).digest('base64url').slice(0, 22);
}
