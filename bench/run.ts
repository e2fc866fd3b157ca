// `npm run bench`: each figure beside its reference, measured in the same run, written to docs/performance.md.
// Not part of `npm test`: speed goals live here, never as timed assertions in tests.
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const CONNECTIONS = 50;

interface LoadResult { requests: number; errors: number; seconds: number; rps: number; p50: number; p99: number }

/** Starts a TypeScript entry in its own process and reads its first JSON line. */
function startProcess(entry: string, env: Record<string, string> = {}) {
  const child = spawn(process.execPath, ['--import', 'tsx', entry], { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
  const ready = new Promise<{ url: string }>((resolve, reject) => {
    let buffered = '';
    child.stdout!.on('data', (chunk) => {
      buffered += chunk;
      const line = buffered.split('\n').find((candidate) => candidate.startsWith('{'));
      if (line) resolve(JSON.parse(line));
    });
    child.once('exit', (code) => reject(new Error(`${entry} exited with ${code}`)));
  });
  return { ready, stop: () => new Promise<void>((resolve) => { child.once('exit', () => resolve()); child.kill('SIGTERM'); }) };
}

function load(url: string): Promise<LoadResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'bench/load.ts', url, String(CONNECTIONS), String(SECONDS)], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.once('exit', (code) => (code === 0 ? resolve(JSON.parse(output)) : reject(new Error(`load exited with ${code}`))));
  });
}

async function measure(entry: string, path: string, env: Record<string, string> = {}): Promise<LoadResult> {
  const server = startProcess(entry, env);
  try {
    const { url } = await server.ready;
    await load(`${url}${path}`); // warm-up, discarded
    return await load(`${url}${path}`);
  } finally {
    await server.stop();
  }
}

const traceDir = await mkdtemp(join(tmpdir(), 'fg-bench-'));
try {
  const bare = await measure('bench/bareServer.ts', '/');
  const flowgate = await measure('bench/flowgateServer.ts', '/workflow/bench-status/status', { TRACE_DIR: traceDir });
  const ratio = flowgate.rps / bare.rps;
  const row = (name: string, r: LoadResult) => `| ${name} | ${r.rps.toFixed(0)} | ${r.p50.toFixed(2)} | ${r.p99.toFixed(2)} | ${r.errors} |`;
  const report = `# Performance

Measured by \`npm run bench\` (bench/run.ts) on ${new Date().toISOString().slice(0, 10)}: ${cpus().length} × ${cpus()[0]?.model ?? 'unknown CPU'},
Node ${process.version}. Load comes from a separate process (bench/load.ts, undici Pool, ${CONNECTIONS} connections,
${SECONDS} s after a ${SECONDS} s warm-up); each server runs in its own process. Figures vary between runs on a
shared 2-core machine; the ratio, measured side by side in one run, is the number to watch.

## Figure 1: \`GET /workflow/{id}/status\` on the embedded engine against a bare node:http server

| server | requests/s | p50 ms | p99 ms | errors |
|---|---|---|---|---|
${row('bare node:http, same JSON', bare)}
${row('flowgate, memory engine', flowgate)}

Ratio: **${ratio.toFixed(2)}** of the bare server (target ≥ 0.85, issue 7).

The remaining figures of issue 7 (Temporal starts and latency, run throughput, SSE followers, memory) are added
with that issue.
`;
  await writeFile(join(ROOT, 'docs', 'performance.md'), report);
  process.stdout.write(report);
} finally {
  await rm(traceDir, { recursive: true, force: true });
}
