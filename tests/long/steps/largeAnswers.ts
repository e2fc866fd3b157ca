import { z } from 'zod';
import { step } from '../../../core/definition/index.js';

/**
 * A batch of `records` records of about 1 KiB, the shape of a data workflow's batches: the step of large_trace
 * (tests/long/workflows/largeAnswers.ts). In a module of its own, so a Temporal worker can swap it for activity stubs.
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
