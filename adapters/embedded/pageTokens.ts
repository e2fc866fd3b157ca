import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { ValidationError } from '../../core/domain/errors.js';

const INVALID_MESSAGE = 'pageToken is invalid or stale';

/**
 * Opaque page tokens: a position plus the query it belongs to, HMAC-signed with the store's key (random per process
 * for the memory store, kept with the runs by the durable one, so a token outlives a restart). A forged or garbled
 * token, or one replayed against another query or run, is a ValidationError.
 */
export class PageTokens {
  constructor(private readonly key: Buffer = randomBytes(32)) {}

  issue(scope: string, position: Record<string, number>): string {
    const body = Buffer.from(JSON.stringify({ s: scope, p: position })).toString('base64url');
    return `${body}.${this.sign(body)}`;
  }

  /** The position stored in `token`, which must have been issued for `scope`. */
  read(scope: string, token: string): Record<string, number> {
    const [body, signature, extra] = token.split('.');
    if (!body || !signature || extra !== undefined) throw invalidToken();
    const expected = Buffer.from(this.sign(body));
    const given = Buffer.from(signature);
    if (expected.length !== given.length || !timingSafeEqual(expected, given)) throw invalidToken();
    const parsed = parseBody(body);
    if (!parsed || parsed.s !== scope) throw invalidToken();
    return parsed.p;
  }

  private sign(body: string): string {
    return createHmac('sha256', this.key).update(body).digest('base64url');
  }
}

function parseBody(body: string): { s: string; p: Record<string, number> } | undefined {
  try {
    const value: unknown = JSON.parse(Buffer.from(body, 'base64url').toString('utf8'));
    if (typeof value !== 'object' || value === null) return undefined;
    const { s, p } = value as { s?: unknown; p?: unknown };
    if (typeof s !== 'string' || typeof p !== 'object' || p === null) return undefined;
    if (!Object.values(p).every((n) => typeof n === 'number' && Number.isFinite(n))) return undefined;
    return { s, p: p as Record<string, number> };
  } catch {
    return undefined;
  }
}

function invalidToken(): InstanceType<typeof ValidationError> {
  return new ValidationError(INVALID_MESSAGE, {
    issues: [{ code: 'invalid_page_token', path: ['pageToken'], message: INVALID_MESSAGE }],
  });
}
