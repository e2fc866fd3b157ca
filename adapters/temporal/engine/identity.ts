/*
 * Who made a change, in Temporal's own records (docs/security.md, Who did what): a request flowgate sends for an API
 * key carries `apikey:<key id>` in its identity field (signal, cancel, terminate, reset), which the Temporal UI and CLI
 * show as they are, and which the history mapper reads back as the event's `identity`. A request made without a key
 * keeps the client's own identity (`<pid>@<host>` by default), which names a process, not a key: the mapper leaves it
 * out, as the embedded engine records nothing then. Key ids hold no ":" (adapters/access/keyFile.ts), so the prefix
 * cannot be mistaken.
 */
const KEY_IDENTITY_PREFIX = 'apikey:';

/** The identity field of a request made for `keyId`, or the client's own when no key acts. */
export function requestIdentity(keyId: string | undefined, clientIdentity: string | undefined): string {
  return keyId === undefined ? (clientIdentity ?? '') : KEY_IDENTITY_PREFIX + keyId;
}

/** The key id an event's identity field names; undefined for identities flowgate did not set for a key. */
export function keyIdOfIdentity(identity: string | null | undefined): string | undefined {
  if (!identity?.startsWith(KEY_IDENTITY_PREFIX)) return undefined;
  const keyId = identity.slice(KEY_IDENTITY_PREFIX.length);
  return keyId === '' ? undefined : keyId;
}
