// Load generator, run as its own process so it never competes with the server under test for the event loop.
// Usage: node --import tsx bench/load.ts <url> <connections> <seconds>   → one JSON line on stdout.
import { Pool } from 'undici';

const [url, connectionsArg, secondsArg] = process.argv.slice(2);
if (!url) throw new Error('usage: load.ts <url> <connections> <seconds>');
const connections = Number(connectionsArg ?? 50);
const seconds = Number(secondsArg ?? 5);
const target = new URL(url);
const pool = new Pool(target.origin, { connections, pipelining: 1 });
const latencies: number[] = [];
let errors = 0;
const deadline = performance.now() + seconds * 1000;

async function worker(): Promise<void> {
  while (performance.now() < deadline) {
    const started = performance.now();
    try {
      const response = await pool.request({ method: 'GET', path: target.pathname + target.search });
      await response.body.dump();
      if (response.statusCode !== 200) errors += 1;
      latencies.push(performance.now() - started);
    } catch {
      errors += 1;
    }
  }
}

const begun = performance.now();
await Promise.all(Array.from({ length: connections }, worker));
const elapsed = (performance.now() - begun) / 1000;
await pool.close();
latencies.sort((a, b) => a - b);
const percentile = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))] ?? 0;
process.stdout.write(
  `${JSON.stringify({ requests: latencies.length, errors, seconds: elapsed, rps: latencies.length / elapsed, p50: percentile(50), p99: percentile(99) })}\n`,
);
