import { keyIdOfIdentity, requestIdentity } from './identity.js';

/**
 * Temporal records a reset's reason but not the step it went back to, which flowgate's `workflow_reset` event names,
 * nor the Idempotency-Key of a keyed reset, by which another API replica recognises a retry (docs/idempotency.md).
 * Nor the API key that asked for it: Temporal records its own service ("history-service") as the identity of a reset's
 * marks, not the request's (identity.ts). All three travel inside the reason, in a form that still reads well in
 * Temporal's own UI: `<reason> (reset to after step "<step>")`, or `... "<step>" by apikey:<key id>)` for a key, then
 * for a keyed reset ` [flowgate idempotency <key> <request> <at>]` (two digests and an ISO 8601 time: no spaces).
 * Step names cannot contain quotes (core/definition/names.ts), key ids neither spaces nor ")" (core/domain/access.ts).
 */
const STEP_SUFFIX = /^([\s\S]*) \(reset to after step "([^"]+)"(?: by (apikey:[A-Za-z0-9._-]+))?\)$/;
const KEY_SUFFIX = /^([\s\S]*\)) \[flowgate idempotency (\S+) (\S+) (\S+)\]$/;

/** A keyed reset's record, as the reason carries it. */
export interface ResetKeyRecord {
  key: string;
  fingerprint: string;
  at: string;
}

export function resetReasonWithStep(reason: string, stepName: string, record?: ResetKeyRecord, keyId?: string): string {
  const by = keyId === undefined ? '' : ` by ${requestIdentity(keyId, undefined)}`;
  const withStep = `${reason} (reset to after step "${stepName}"${by})`;
  return record ? `${withStep} [flowgate idempotency ${record.key} ${record.fingerprint} ${record.at}]` : withStep;
}

/**
 * The reason, step, key record and API key of a flowgate reset; a reset made elsewhere (Temporal UI, CLI) has only a
 * reason.
 */
export function parseResetReason(text: string): { reason: string; stepName?: string; record?: ResetKeyRecord; keyId?: string } {
  // The key's suffix follows the step's, so a client's reason can never pass for a record.
  const keyed = KEY_SUFFIX.exec(text);
  const record = keyed ? { key: keyed[2] ?? '', fingerprint: keyed[3] ?? '', at: keyed[4] ?? '' } : undefined;
  const match = STEP_SUFFIX.exec(keyed ? (keyed[1] ?? '') : text);
  if (!match) return { reason: text };
  const keyId = keyIdOfIdentity(match[3]);
  return { reason: match[1] ?? '', stepName: match[2] ?? '', ...(record ? { record } : {}), ...(keyId === undefined ? {} : { keyId }) };
}

/** The text without a keyed reset's record (Temporal gives the reset's reason to the run a reset terminates too). */
export function withoutKeyRecord(text: string): string {
  const keyed = KEY_SUFFIX.exec(text);
  return keyed && STEP_SUFFIX.test(keyed[1] ?? '') ? (keyed[1] ?? '') : text;
}
