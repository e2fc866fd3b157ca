import { ValidationError } from './errors.js';
import { describeRefusal, EMPTY_ALLOWLIST, hostAddress, loopbackNameRefusal, outboundRefusal, unlistedHostRefusal, type OutboundAllowlist } from './outboundAddress.js';
import type { PinnedRunRef } from './run.js';

/**
 * Where a run's v2 result is POSTed when the run closes (issue 9: run-finished callbacks), stored with the run so a
 * continued or reset run keeps it. `retryForMs` bounds how long delivery is retried after the close.
 */
export interface RunCallbackTarget {
  url: string;
  retryForMs: number;
}

/** How delivery attempts are spaced on both engines: 1 s, 2 s, 4 s ... at most a minute apart. */
export const CALLBACK_BACKOFF = { initialIntervalMs: 1_000, backoffCoefficient: 2, maximumIntervalMs: 60_000 } as const;

/** The pause after failed attempt number `attempt` (1-based), as CALLBACK_BACKOFF spaces them. */
export function callbackRetryDelayMs(attempt: number): number {
  const { initialIntervalMs, backoffCoefficient, maximumIntervalMs } = CALLBACK_BACKOFF;
  return Math.min(initialIntervalMs * backoffCoefficient ** Math.max(0, attempt - 1), maximumIntervalMs);
}

/**
 * True when failed attempt number `attempt` was the last one: the next would start later than `retryForMs` after
 * the first. Both engines stop by this rule, so the bound means the same on each.
 */
export function callbackRetriesExhausted(attempt: number, firstAttemptAtMs: number, nowMs: number, retryForMs: number): boolean {
  return nowMs + callbackRetryDelayMs(attempt) > firstAttemptAtMs + retryForMs;
}

/** CALLBACK_RETRY_MAX_SECONDS' default: an hour of retries after the close. */
export const DEFAULT_CALLBACK_RETRY_FOR_MS = 3_600_000;

export const MAX_CALLBACK_URL_LENGTH = 2048;

// A DNS name whose last label starts with a letter, or a dotted-quad IPv4 address: the hosts the WHATWG URL parser
// always accepts (a numeric last label would be parsed as IPv4 and may be refused). IPv6 literals are not offered.
const OCTET = '(?:25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])';
// An xn-- label must be valid Punycode, which a pattern cannot check: such names are left out.
const LABEL = '(?![Xx][Nn]--)[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?';
const LAST_LABEL = '(?![Xx][Nn]--)[A-Za-z](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?';
const HOST = `(?:(?:${LABEL}\\.)*${LAST_LABEL}|(?:${OCTET}\\.){3}${OCTET})`;
const PORT = '(?:6553[0-5]|655[0-2][0-9]|65[0-4][0-9]{2}|6[0-4][0-9]{3}|[1-5][0-9]{4}|[0-9]{1,4})';
const PATH_CHARACTERS = "A-Za-z0-9._~!$&'()*+,;=:@%/-";

/** The callbackUrl rule as a JSON Schema (ECMA-262) pattern: http or https, a host, optional port, path and query. */
// `?` goes first in the query's class: after PATH_CHARACTERS' closing `-` it would make a range `/-?` (which let `<`
// and `>` in and kept `-` out).
export const CALLBACK_URL_PATTERN = `^https?://${HOST}(?::${PORT})?(?:/[${PATH_CHARACTERS}]*)?(?:\\?[?${PATH_CHARACTERS}]*)?$`;
const CALLBACK_URL = new RegExp(CALLBACK_URL_PATTERN);

/** Why `value` is not a callback URL flowgate will call, or undefined when it is one. */
export function callbackUrlProblem(value: string): string | undefined {
  const rule = 'callbackUrl must be an absolute http:// or https:// URL with a host name or IPv4 address (no user info, no fragment)';
  if (value.length > MAX_CALLBACK_URL_LENGTH) return `callbackUrl must be at most ${MAX_CALLBACK_URL_LENGTH} characters`;
  if (!CALLBACK_URL.test(value)) return rule;
  try {
    new URL(value);
  } catch {
    return rule;
  }
  return undefined;
}

/**
 * Why flowgate will not call a well-formed callbackUrl whose host is an address (`http://169.254.169.254/`) or a name
 * that always means loopback (`http://localhost/`), or undefined. Another host name passes here: what it resolves to
 * is checked when the callback is sent, on the address connected to (docs/callbacks.md).
 */
export function callbackAddressProblem(value: string, allowlist: OutboundAllowlist = EMPTY_ALLOWLIST): string | undefined {
  const { hostname } = new URL(value);
  const address = hostAddress(hostname);
  const refusal =
    address === undefined
      ? (unlistedHostRefusal(hostname, allowlist) ?? loopbackNameRefusal(hostname, allowlist))
      : outboundRefusal(hostname, address, allowlist);
  return refusal && `callbackUrl is refused: ${describeRefusal(refusal)}, which flowgate does not call unless OUTBOUND_ALLOWLIST opens it`;
}

export function assertCallbackUrl(value: string, allowlist?: OutboundAllowlist): string {
  const problem = callbackUrlProblem(value);
  if (problem) throw new ValidationError(problem, { issues: [{ code: 'invalid_callback_url', path: ['callbackUrl'], message: problem }] });
  const refused = callbackAddressProblem(value, allowlist);
  if (refused) throw new ValidationError(refused, { issues: [{ code: 'refused_callback_address', path: ['callbackUrl'], message: refused }] });
  return value;
}

/** `Idempotency-Key` of a run's callback: the same on every attempt, so a receiver can drop repeats. */
export function callbackIdempotencyKey(run: PinnedRunRef): string {
  return `${run.workflowId}:${run.runId}`;
}
