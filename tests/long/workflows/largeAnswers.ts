import { z } from 'zod';
import { step, workflow } from '../../../core/definition/index.js';

/**
 * Large answers for the greedy-reader scene (tests/long/greedyReaders.test.ts): each step returns `records` records of
 * about 1 KiB, the shape of a data workflow's batches, so the run's trace and its history pages are megabytes of
 * many small objects, not one long string.
 */
export const makeBatch = step({
  name: 'make_batch',
  inputSchema: z.object({ batch: z.number().int(), records: z.number().int().positive() }),
  fn: async ({ batch, records }: { batch: number; records: number }) => ({
    batch,
    records: Array.from({ length: records }, (_, index) => ({
      id: `${batch}-${index}`,
      score: (batch * 7919 + index) % 1000,
      text: `record ${index} of batch ${batch}: ${'lorem ipsum dolor sit amet '.repeat(36)}`,
    })),
  }),
});

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
