import { z } from 'zod';
import { step } from '../../core/definition/index.js';

/** The step of bench_one_step, in its own module so a Temporal worker swaps it for an activity. */
export const addOne = step({
  name: 'bench_add_one',
  inputSchema: z.number(),
  outputSchema: z.number(),
  fn: async (n: number) => n + 1,
});
