// Load generator, run as its own process so it never competes with the server under test for the event loop.
// Usage: node --import tsx bench/processes/load.ts '<LoadSpec JSON>'   → one JSON line (LoadResult) on stdout.
import { Pool } from 'undici';
import { latencySummary } from './latencySummary.mjs';

export interface LoadSpec {
  url: string;
  method?: 'GET' | 'POST';
  /** JSON request body; `{{seq}}` in it becomes a number unique to the request. */
  body?: string;
  connections: number;
  seconds: number;
  /** Stop after this many requests (a latency run), whichever comes first. */
  maxRequests?: number;
  /** A 2xx answer counts as an error unless its body contains this (a run that ended failed still answers 200). */
  expect?: string;
  /**
   * Requests per second, sent on schedule by whichever connection is free (at most `connections` in flight): a
   * server below its capacity, instead of as many requests as it can answer.
   */
  rate?: number;
  /** Request headers besides the content type (figure 12: Accept-Encoding). */
  headers?: Record<string, string>;
}

export interface LoadResult {
  requests: number;
  errors: number;
  statuses: Record<string, number>;
  seconds: number;
  rps: number;
  p50: number;
  p99: number;
  /** The measuring process's own CPU time over the requests, in µs (the raw client's reference in figure 9). */
  cpuMicros?: number;
  /** When the requests began and ended, epoch ms: what another process measured meanwhile (figure 11's prober). */
  window?: { from: number; to: number };
}

const spec = JSON.parse(process.argv[2] ?? '{}') as LoadSpec;
if (!spec.url) throw new Error("usage: load.ts '{\"url\":...,\"connections\":50,\"seconds\":5}'");
const target = new URL(spec.url);
const pool = new Pool(target.origin, { connections: spec.connections, pipelining: 1 });
const latencies: number[] = [];
const statuses: Record<string, number> = {};
let errors = 0;
let sequence = 0;
const deadline = performance.now() + spec.seconds * 1000;
const path = target.pathname + target.search;
const headers = { ...spec.headers, ...(spec.body ? { 'content-type': 'application/json' } : {}) };

async function worker(): Promise<void> {
  while (performance.now() < deadline && (spec.maxRequests === undefined || sequence < spec.maxRequests)) {
    sequence += 1;
    if (spec.rate) {
      const wait = begun + (sequence / spec.rate) * 1000 - performance.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      if (performance.now() >= deadline) break;
    }
    const body = spec.body?.replaceAll('{{seq}}', String(sequence));
    const started = performance.now();
    try {
      const response = await pool.request({ method: spec.method ?? 'GET', path, headers, ...(body ? { body } : {}) });
      const unexpected = spec.expect !== undefined && !(await response.body.text()).includes(spec.expect);
      if (spec.expect === undefined) await response.body.dump();
      statuses[response.statusCode] = (statuses[response.statusCode] ?? 0) + 1;
      if (response.statusCode >= 400 || unexpected) errors += 1;
      else latencies.push(performance.now() - started);
    } catch (error) {
      if (errors === 0) process.stderr.write(`load: ${error instanceof Error ? error.message : String(error)}\n`);
      errors += 1;
    }
  }
}

const begun = performance.now();
await Promise.all(Array.from({ length: spec.connections }, worker));
const elapsed = (performance.now() - begun) / 1000;
await pool.close();
const window = { from: performance.timeOrigin + begun, to: performance.timeOrigin + begun + elapsed * 1000 };
process.stdout.write(`${JSON.stringify({ ...latencySummary(latencies, errors, elapsed, statuses), window })}\n`);
