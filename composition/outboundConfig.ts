import { z } from 'zod';
import { parseOutboundAllowlist, type OutboundAllowlist } from '../core/domain/outboundAddress.js';
import { envBoolean } from './envBoolean.js';

/**
 * OUTBOUND_ALLOWLIST and OUTBOUND_ALLOW_PUBLIC, read by the API server (run callbacks and webhook calls on the embedded
 * engine; callbackUrl checked at start) and by workers (both, on Temporal).
 * - OUTBOUND_ALLOWLIST: comma-separated host names, `.domain` suffixes, IP addresses and CIDR networks that webhook
 *   calls and run callbacks may reach although the address rules refuse them (loopback, private, link-local, ...).
 *   Unset or empty: none.
 * - OUTBOUND_ALLOW_PUBLIC (default on): off calls only what the allow-list names, public addresses included, and never
 *   resolves a host name the list does not name.
 * docs/reliability.md, "Outbound calls".
 */
export const outboundEnv = {
  OUTBOUND_ALLOWLIST: z
    .string()
    .optional()
    .transform((text, context) => {
      const { allowlist, problems } = parseOutboundAllowlist(text);
      for (const problem of problems) context.addIssue({ code: 'custom', message: problem });
      return allowlist;
    }),
  OUTBOUND_ALLOW_PUBLIC: envBoolean.default(true),
};

/** The parsed allow-list with OUTBOUND_ALLOW_PUBLIC applied. */
export function outboundPolicy(value: { OUTBOUND_ALLOWLIST: OutboundAllowlist; OUTBOUND_ALLOW_PUBLIC: boolean }): OutboundAllowlist {
  return value.OUTBOUND_ALLOW_PUBLIC ? value.OUTBOUND_ALLOWLIST : Object.freeze({ ...value.OUTBOUND_ALLOWLIST, listedOnly: true });
}
