import { z } from 'zod';
import { workflow } from '../../core/definition/index.js';

/** Sleeps on a durable timer; stop it (PATCH .../stop) to see a cancellation, or wait it out. */
export default workflow({
  name: 'nap',
  description: 'Sleeps for the given number of milliseconds (at most one hour)',
  inputSchema: z.object({ ms: z.number().int().min(0).max(3_600_000) }).strict(),
  outputSchema: z.object({ sleptMs: z.number() }),
  fn: async ({ ms }, ctx) => {
    await ctx.sleep(ms);
    return { sleptMs: ms };
  },
});
