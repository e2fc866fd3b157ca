// The reference of figure 4: trivial runs on the memory engine called in-process (the API's runAndWait, no HTTP), at
// the bench's concurrency, from the compiled dist/. Usage: inProcess.mjs '{"connections":50,"seconds":5}'
// → one JSON line (LoadResult).
import { startFlowgateServer } from '../../dist/composition/server.js';
import { latencySummary } from './latencySummary.mjs';

const spec = JSON.parse(process.argv[2] ?? '{}');
const server = await startFlowgateServer({ env: { ENGINE: 'memory', ...process.env, PORT: '0', LOG_LEVEL: 'error', WORKFLOWS_DIR: 'dist/bench/workflows' } });
const latencies = [];
let errors = 0;

async function measure(seconds) {
  latencies.length = 0;
  errors = 0;
  const deadline = performance.now() + seconds * 1000;
  const worker = async () => {
    while (performance.now() < deadline) {
      const started = performance.now();
      const { answer: result } = await server.api.runAndWait({ workflowName: 'bench_noop', input: { n: 1 }, timeoutSeconds: 30 }, '2');
      if (result.status === 'completed') latencies.push(performance.now() - started);
      else errors += 1;
    }
  };
  const begun = performance.now();
  await Promise.all(Array.from({ length: spec.connections }, worker));
  return (performance.now() - begun) / 1000;
}

await measure(Math.min(3, spec.seconds)); // warm-up, discarded
const elapsed = await measure(spec.seconds);
await server.close();
process.stdout.write(`${JSON.stringify(latencySummary(latencies, errors, elapsed))}\n`);
