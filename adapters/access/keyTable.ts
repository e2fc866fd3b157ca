import { hash, timingSafeEqual } from 'node:crypto';
import { AUTH_TOKEN_KEY_ID, isExpired, SCOPES, type AccessKey } from '../../core/domain/access.js';
import type { AccessKeyRegistry } from '../../ports/accessKeys.js';

/** A key and the SHA-256 of its secret: what a key file holds (never the secret itself). */
export interface HashedKey {
  key: AccessKey;
  /** 32 bytes. */
  digest: Buffer;
}

/**
 * The keys, looked up by secret in constant time: the presented secret is hashed once, and its digest compared with
 * EVERY key's digest with timingSafeEqual, whichever matched (no early exit), so the time tells neither which key
 * matched nor how much of a guess was right. Digests are fixed-length, so no length is compared either.
 */
export class KeyTable implements AccessKeyRegistry {
  constructor(
    readonly keys: readonly HashedKey[],
    private readonly now: () => Date = () => new Date(),
    /** Injectable only so tests can see that every key is compared, whatever matched. */
    private readonly compareDigests: (a: Buffer, b: Buffer) => boolean = timingSafeEqual,
  ) {}

  lookup(secret: string): AccessKey | undefined {
    const presented = sha256(secret);
    let found: AccessKey | undefined;
    for (const { key, digest } of this.keys) {
      // Evaluated for every key: `found ??= ...` would skip the comparisons after a match.
      const matches = this.compareDigests(presented, digest);
      if (matches && found === undefined) found = key;
    }
    return found !== undefined && !isExpired(found, this.now()) ? found : undefined;
  }
}

/** Several registries as one (the key file and API_AUTH_TOKEN): each is asked, every time. */
export function combinedRegistry(registries: readonly AccessKeyRegistry[]): AccessKeyRegistry {
  if (registries.length === 1) return registries[0]!;
  return {
    lookup(secret) {
      let found: AccessKey | undefined;
      for (const registry of registries) {
        const key = registry.lookup(secret);
        found ??= key;
      }
      return found;
    },
  };
}

/** One call, no Hash object: every authenticated request hashes its secret (docs/performance.md, figure 9). */
export function sha256(value: string): Buffer {
  return hash('sha256', value, 'buffer');
}

export function sha256Hex(value: string): string {
  return sha256(value).toString('hex');
}

/**
 * A key defined outside the key file (API_AUTH_TOKEN, createFlowgate's apiKeys) that lives beside the file's: the
 * file may take neither its id nor its secret, and `source` is how a refusal names it.
 */
export interface ReservedKey extends HashedKey {
  source: string;
}

/** API_AUTH_TOKEN as a key: id `token`, every scope, no limits, no expiry. */
export function authTokenKey(token: string): ReservedKey {
  return { key: Object.freeze({ id: AUTH_TOKEN_KEY_ID, scopes: [...SCOPES] }), digest: sha256(token), source: 'API_AUTH_TOKEN' };
}
