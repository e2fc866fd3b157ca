import type { AccessKey } from '../../core/domain/access.js';
import type { AccessKeyRegistry } from '../../ports/accessKeys.js';
import { authTokenKey, combinedRegistry, KeyTable } from '../access/keyTable.js';
import { UnauthorizedError } from './transportErrors.js';

/** Finds the API key of a request's `Authorization` header (docs/security.md). */
export interface Authenticator {
  /** False when neither a token nor keys are configured: every request is served, for no key. */
  readonly enabled: boolean;
  /** The key of exactly `Bearer <secret>`, when the secret is a key's and it has not expired; else undefined (401). */
  authenticate(authorization: string | readonly string[] | undefined): AccessKey | undefined;
}

/** One word after the scheme: a header with two tokens, or a token with whitespace in it, matches no key. */
const BEARER = /^Bearer +(\S+) *$/i;

/**
 * Every header, malformed or not, goes through the same lookup (KeyTable: the secret hashed, its digest compared in
 * constant time with every key's), so the answer's time does not tell which part of a header was wrong.
 */
export function createAuthenticator(options: { authToken?: string | undefined; accessKeys?: AccessKeyRegistry | undefined }): Authenticator {
  const registries: AccessKeyRegistry[] = [];
  if (options.accessKeys) registries.push(options.accessKeys);
  if (options.authToken !== undefined) registries.push(new KeyTable([authTokenKey(options.authToken)]));
  if (registries.length === 0) return { enabled: false, authenticate: () => undefined };
  const registry = combinedRegistry(registries);
  return {
    enabled: true,
    authenticate(authorization) {
      // Two Authorization headers are ambiguous; refuse rather than pick one.
      const header = typeof authorization === 'string' ? authorization : '';
      const presented = BEARER.exec(header)?.[1];
      const key = registry.lookup(presented ?? '');
      return presented === undefined ? undefined : key;
    },
  };
}

export function unauthorized(): InstanceType<typeof UnauthorizedError> {
  // Deliberately the same message for a missing header, a wrong scheme, an unknown and an expired key.
  return new UnauthorizedError('Missing or invalid bearer token.');
}
