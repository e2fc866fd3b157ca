import { z } from 'zod';
import { workflow } from '../../core/definition/index.js';

/** Continues as new until `n` reaches 0: every step down is a new run of the same workflow id. */
export default workflow({
  name: 'countdown',
  description: 'Counts down from n, one run per number, through continue-as-new',
  inputSchema: z.object({ n: z.number().int().min(0).max(100) }).strict(),
  outputSchema: z.object({ reachedZero: z.boolean() }),
  fn: async ({ n }, ctx) => {
    if (n > 0) return ctx.continueAsNew({ n: n - 1 });
    return { reachedZero: true };
  },
});
