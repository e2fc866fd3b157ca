import { createHash, timingSafeEqual } from 'node:crypto';
import { UnauthorizedError } from './transportErrors.js';

/** Checks `Authorization` headers against the configured bearer token. */
export interface BearerAuthenticator {
  /** True when no token is configured or the header carries exactly `Bearer <token>`. */
  isAuthorized(authorization: string | readonly string[] | undefined): boolean;
  readonly enabled: boolean;
}

const BEARER = /^Bearer +(\S+) *$/i;

/**
 * Both sides are hashed to fixed-length SHA-256 digests before `timingSafeEqual`, so neither the comparison time
 * nor an early length mismatch tells an attacker how much of a guess was right or how long the token is. Every
 * header, malformed or not, goes through the same hash and comparison.
 */
export function createBearerAuthenticator(
  token: string | undefined,
  /** Injectable only so tests can observe that every header takes the same path. */
  compareDigests: (a: Buffer, b: Buffer) => boolean = timingSafeEqual,
): BearerAuthenticator {
  if (token === undefined) return { enabled: false, isAuthorized: () => true };
  const expectedDigest = sha256(token);
  return {
    enabled: true,
    isAuthorized(authorization) {
      // Two Authorization headers are ambiguous; refuse rather than pick one.
      const header = typeof authorization === 'string' ? authorization : '';
      const presented = BEARER.exec(header)?.[1];
      const matches = compareDigests(sha256(presented ?? ''), expectedDigest);
      return presented !== undefined && matches;
    },
  };
}

export function unauthorized(): InstanceType<typeof UnauthorizedError> {
  // Deliberately the same message for a missing header, a wrong scheme and a wrong token.
  return new UnauthorizedError('Missing or invalid bearer token.');
}

function sha256(value: string): Buffer {
  return createHash('sha256').update(value, 'utf8').digest();
}
