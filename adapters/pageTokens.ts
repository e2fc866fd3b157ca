import { createCipheriv, createDecipheriv, createHash, createHmac, randomBytes } from 'node:crypto';
import { invalidPageToken } from '../core/domain/errors.js';

/**
 * Opaque page tokens, both engines': an engine's position (its own payload type), sealed (AES-256-GCM) with a digest
 * of the query it belongs to as authenticated data. A forged, garbled or truncated token, or one replayed against
 * another query, run, page size or filter, is the core's invalidPageToken before the engine reads anything. Sealed,
 * not only signed: a position may name what the client may not see (the last schedule a limited key's scan passed,
 * the start time of a run it cannot read), and what an engine keeps inside is never shown to or taken from clients.
 */
export class PageTokens {
  private readonly key: Buffer;

  /**
   * `secret`: a key as bytes (the embedded durable store keeps one with its runs, so a token outlives a restart), or a
   * passphrase shared by every API server behind one load balancer (Temporal); random, per process, when absent.
   */
  constructor(secret?: string | Uint8Array) {
    const material = secret === undefined ? randomBytes(32) : typeof secret === 'string' ? createHash('sha256').update(secret).digest() : secret;
    // A key of its own for sealing, derived from what is given: the durable store's key is used for nothing else today,
    // but a key is never used by two algorithms.
    this.key = createHmac('sha256', material).update('flowgate page tokens').digest();
  }

  issue(scope: string, content: unknown): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    cipher.setAAD(digest(scope));
    const sealed = Buffer.concat([cipher.update(JSON.stringify(content), 'utf8'), cipher.final()]);
    return Buffer.concat([iv, sealed, cipher.getAuthTag()]).toString('base64url');
  }

  /** The content stored in `token`, which must have been issued for `scope` and pass `isValid`. */
  read<T>(scope: string, token: string, isValid: (content: unknown) => content is T): T {
    if (!BASE64URL.test(token)) throw invalidPageToken();
    const bytes = Buffer.from(token, 'base64url');
    // Decoding ignores a last character's spare bits: only the token as issued reads, not its look-alikes.
    if (bytes.length < IV_BYTES + TAG_BYTES + 1 || bytes.toString('base64url') !== token) throw invalidPageToken();
    let content: unknown;
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.key, bytes.subarray(0, IV_BYTES), { authTagLength: TAG_BYTES });
      decipher.setAAD(digest(scope));
      decipher.setAuthTag(bytes.subarray(bytes.length - TAG_BYTES));
      const plain = Buffer.concat([decipher.update(bytes.subarray(IV_BYTES, bytes.length - TAG_BYTES)), decipher.final()]);
      content = JSON.parse(plain.toString('utf8'));
    } catch {
      throw invalidPageToken();
    }
    if (!isValid(content)) throw invalidPageToken();
    return content;
  }
}

const IV_BYTES = 12;
const TAG_BYTES = 16;
/** Unpadded base64url, as issued: anything else (padding, a character Buffer would skip) is not a token. */
const BASE64URL = /^[A-Za-z0-9_-]+$/;

function digest(scope: string): Buffer {
  return createHash('sha256').update(scope).digest();
}
