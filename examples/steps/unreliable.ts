import { z } from 'zod';
import { step } from '../../core/definition/index.js';

export class UpstreamUnavailableError extends Error {
  override name = 'UpstreamUnavailableError';
}

/** Always fails, after one quick retry: shows how a step failure reaches the result's `error`. */
export const fetchFromUpstream = step({
  name: 'fetch_from_upstream',
  inputSchema: z.object({ resource: z.string() }),
  retry: { maximumAttempts: 2, initialIntervalMs: 100 },
  fn: async ({ resource }: { resource: string }): Promise<never> => {
    throw new UpstreamUnavailableError(`upstream refused ${resource}`);
  },
});
