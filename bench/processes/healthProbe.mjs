// Figure 11's /health prober: a low, fixed rate of `GET /health` on connections of its own, in its own process, while
// a load runs against the same server. A request is sent on schedule even when the one before has not answered, so a
// stalled event loop shows as the latency of every probe it held, not as probes left unsent.
// Usage: healthProbe.mjs '{"url":...,"intervalMs":20}' → {"probing":true} once it runs; on SIGTERM one JSON line,
// {samples: [[epoch ms when sent, latency ms], ...], errors}, and it exits.
import { Pool } from 'undici';

const spec = JSON.parse(process.argv[2] ?? '{}');
if (!spec.url) throw new Error('usage: healthProbe.mjs \'{"url":...,"intervalMs":20}\'');
const target = new URL(spec.url);
const pool = new Pool(target.origin, { connections: 8 });
const samples = [];
let errors = 0;
let stopped = false;
const pending = new Set();

async function probe() {
  const sent = performance.now();
  try {
    const response = await pool.request({ method: 'GET', path: '/health' });
    await response.body.dump();
    if (response.statusCode === 200) samples.push([performance.timeOrigin + sent, performance.now() - sent]);
    else errors += 1;
  } catch {
    errors += 1;
  }
}

process.once('SIGTERM', () => (stopped = true));
process.stdout.write(`${JSON.stringify({ probing: true })}\n`);
const began = performance.now();
for (let next = 0; !stopped; next++) {
  const wait = began + next * spec.intervalMs - performance.now();
  if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
  if (stopped) break;
  const request = probe().finally(() => pending.delete(request));
  pending.add(request);
}
await Promise.all(pending);
await pool.close();
process.stdout.write(`${JSON.stringify({ samples, errors })}\n`);
process.exit(0);
