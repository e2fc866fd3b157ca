import { z } from 'zod';
import { parseOutboundAllowlist } from '../core/domain/outboundAddress.js';

/**
 * OUTBOUND_ALLOWLIST, read by the API server (run callbacks and webhook calls on the embedded engine; callbackUrl
 * checked at start) and by workers (both, on Temporal): comma-separated host names, `.domain` suffixes, IP addresses
 * and CIDR networks that webhook calls and run callbacks may reach although the address rules refuse them (loopback,
 * private, link-local, ...). Unset or empty: none (docs/reliability.md, "Outbound calls").
 */
export const outboundAllowlistEnv = {
  OUTBOUND_ALLOWLIST: z
    .string()
    .optional()
    .transform((text, context) => {
      const { allowlist, problems } = parseOutboundAllowlist(text);
      for (const problem of problems) context.addIssue({ code: 'custom', message: problem });
      return allowlist;
    }),
};
