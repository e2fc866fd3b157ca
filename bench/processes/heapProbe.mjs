// Preloaded into the deployed API of figures 9b and 14 (node --expose-gc --import): on SIGUSR2 it collects garbage and
// prints the heap then in use as one JSON line on stderr, and with BENCH_ALLOCATIONS=1 the bytes allocated since it
// loaded (allocations.mjs). Idle otherwise: nothing runs in the API until asked.
import { allocationCounter } from './allocations.mjs';

const allocated = process.env.BENCH_ALLOCATIONS === '1' ? allocationCounter() : undefined;
process.on('SIGUSR2', () => {
  const allocatedBytes = allocated?.();
  globalThis.gc?.();
  process.stderr.write(`${JSON.stringify({ heapAfterGc: process.memoryUsage().heapUsed, ...(allocatedBytes === undefined ? {} : { allocatedBytes }) })}\n`);
});
