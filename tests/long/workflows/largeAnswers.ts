import { z } from 'zod';
import { workflow } from '../../../core/definition/index.js';
import { makeBatch } from '../steps/largeAnswers.js';

/**
 * Large answers for the greedy-client scenes (bench/greedyClients.ts, tests/contract/unreadAnswers.test.ts): each step
 * returns `records` records of about 1 KiB, so the run's trace and its history are megabytes of many small objects,
 * not one long string.
 */
export const largeTrace = workflow({
  name: 'large_trace',
  description: 'Runs `batches` steps of `records` records each: a trace (and history) of megabytes',
  inputSchema: z.object({ batches: z.number().int().positive(), records: z.number().int().positive() }).strict(),
  outputSchema: z.object({ batches: z.number() }),
  fn: async ({ batches, records }) => {
    for (let batch = 0; batch < batches; batch++) await makeBatch({ batch, records });
    return { batches };
  },
});
