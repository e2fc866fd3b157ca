// Preloaded into the deployed API of figure 14 (node --expose-gc --import): on SIGUSR2 it collects garbage and
// prints the heap then in use as one JSON line on stderr. Idle otherwise: nothing runs in the API until asked.
process.on('SIGUSR2', () => {
  globalThis.gc?.();
  process.stderr.write(`${JSON.stringify({ heapAfterGc: process.memoryUsage().heapUsed })}\n`);
});
