import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { get } from 'node:http';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from './processes.js';

/*
 * Figure 8 of `npm run bench`: greedy clients against one server process (docs/reliability.md), the scenes as
 * reported:
 *  - 30 clients asking for a 12 MB trace-log and 30 for a 12 MB history page (pageSize=200), none reading a byte:
 *    goal, the server's RSS grows by less than 768 MiB and /health on a new connection answers within 1 s throughout;
 *  - 100 connections each pipelining 300 `GET /openapi.json` without a token, reading nothing: goal, /health on a new
 *    connection answers within 2 s, and a connection's answers are built only as far as its client could take them.
 * Goals, measured here, never asserted in tests: the deterministic parts (a slow reader holds a bounded buffer, no
 * answer is built for a client gone, at most MAX_PIPELINED_REQUESTS in flight) are tests/unit/http/greedyClients.test.ts.
 */

const MiB = 1024 * 1024;
const SCENE_SECONDS = Number(process.env.GREEDY_SCENE_SECONDS ?? 8);

interface SceneServer {
  child: ChildProcess;
  url: string;
  /** Access-log lines seen so far, by path. */
  answered(path: string): number;
  stop(): Promise<void>;
}

/** The path of an access-log line (`"msg":"http request"`), whatever the order of its fields; undefined for other lines. */
function accessLinePath(line: string): string | undefined {
  if (!line.includes('"msg":"http request"')) return undefined;
  try {
    const { path } = JSON.parse(line) as { path?: unknown };
    return typeof path === 'string' ? path : undefined;
  } catch {
    return undefined;
  }
}

async function startServer(traceDir: string): Promise<SceneServer> {
  // The embedded engine, whatever Temporal the test runner started for other suites.
  const { TEMPORAL_ADDRESS: _ignored, ...inherited } = process.env;
  const child = spawn(process.execPath, ['--expose-gc', '--import', 'tsx', 'tests/long/soakServer.ts'], {
    cwd: ROOT,
    env: { ...inherited, HOST: '127.0.0.1', PORT: '0', LOG_LEVEL: 'info', WORKFLOWS_DIR: 'tests/long/workflows', TRACE_DIR: traceDir, ENGINE: 'memory' },
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const counts = new Map<string, number>();
  let stderr = '';
  let pending = '';
  child.stderr!.on('data', (chunk) => (stderr += chunk));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`scene server did not start:\n${stderr}`)), 30_000);
    child.once('exit', (code) => reject(new Error(`scene server exited with ${code}:\n${stderr}`)));
    child.stdout!.on('data', (chunk: Buffer) => {
      pending += chunk.toString('utf8');
      const lines = pending.split('\n');
      pending = lines.pop()!;
      for (const line of lines) {
        if (line.includes('"scene server ready"') || line.includes('"soak server ready"')) {
          clearTimeout(timer);
          resolve(JSON.parse(line).url);
        }
        const path = accessLinePath(line);
        if (path) counts.set(path, (counts.get(path) ?? 0) + 1);
      }
    });
  });
  return {
    child,
    url,
    answered: (path) => counts.get(path) ?? 0,
    stop: async () => {
      if (child.exitCode === null) child.kill('SIGKILL');
      await exited;
    },
  };
}

async function rssOf(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  return Number(/^VmRSS:\s+(\d+) kB$/m.exec(status)![1]) * 1024;
}

/** `GET /health` on a new connection: milliseconds until the whole answer is in. */
function healthLatency(url: string): Promise<number> {
  const { hostname, port } = new URL(url);
  const startedAt = performance.now();
  return new Promise((resolve, reject) => {
    get({ host: hostname, port, path: '/health', agent: false }, (response) => {
      response.resume();
      response.once('end', () => (response.statusCode === 200 ? resolve(performance.now() - startedAt) : reject(new Error(`/health: ${response.statusCode}`))));
    }).once('error', reject);
  });
}

/** A client that sends `raw` and never reads a byte. */
async function greedyClient(url: string, raw: string): Promise<Socket> {
  const { hostname, port } = new URL(url);
  const socket = connect(Number(port), hostname);
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  socket.on('error', () => {});
  socket.pause();
  socket.write(raw);
  return socket;
}

interface Observed {
  rssBeforeMiB: number;
  rssPeakMiB: number;
  rssGrowthMiB: number;
  healthMaxMs: number;
  healthP50Ms: number;
  healthProbes: number;
}

/** Samples RSS every 50 ms and /health on a new connection every 250 ms for the scene's length. */
async function observe(server: SceneServer, baseline: number): Promise<Observed> {
  let peak = baseline;
  const latencies: number[] = [];
  const until = Date.now() + SCENE_SECONDS * 1000;
  const sampler = (async () => {
    while (Date.now() < until) {
      peak = Math.max(peak, await rssOf(server.child.pid!));
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  })();
  while (Date.now() < until) {
    latencies.push(await healthLatency(server.url));
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  await sampler;
  const sorted = [...latencies].sort((a, b) => a - b);
  return {
    rssBeforeMiB: round(baseline / MiB),
    rssPeakMiB: round(peak / MiB),
    rssGrowthMiB: round((peak - baseline) / MiB),
    healthMaxMs: round(sorted.at(-1)!),
    healthP50Ms: round(sorted[Math.floor(sorted.length / 2)]!),
    healthProbes: latencies.length,
  };
}

const round = (value: number) => Math.round(value * 10) / 10;

async function withServer<T>(body: (server: SceneServer) => Promise<T>): Promise<T> {
  const traceDir = await mkdtemp(join(tmpdir(), 'fg-greedy-'));
  const server = await startServer(traceDir);
  try {
    return await body(server);
  } finally {
    await server.stop();
    await rm(traceDir, { recursive: true, force: true });
  }
}

async function collectGarbage(server: SceneServer): Promise<void> {
  await new Promise<void>((resolve) => {
    server.child.once('message', () => resolve());
    server.child.send({ id: 1 });
  });
}

/** The first scene: 60 readers of 12 MB answers that never read. */
export async function greedyReaders(): Promise<GreedyReaders> {
  return withServer(async (server) => {
    const run = await fetch(`${server.url}/workflow/run`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ workflowName: 'large_trace', workflowId: 'greedy', input: { batches: 40, records: 300 }, timeout: 60 }),
    });
    const { runId } = (await run.json()) as { runId: string };
    if (run.status !== 200) throw new Error(`the large_trace run answered ${run.status}`);
    const tracePath = `/workflow/greedy/runs/${runId}/trace-log`;
    const traceBytes = (await (await fetch(`${server.url}${tracePath}`)).arrayBuffer()).byteLength;
    const pageBytes = (await (await fetch(`${server.url}/workflow/greedy/history?pageSize=200`)).arrayBuffer()).byteLength;
    if (traceBytes < 11_000_000 || pageBytes < 11_000_000) throw new Error(`answers of ${traceBytes} and ${pageBytes} bytes, not 12 MB`);
    await collectGarbage(server);
    const baseline = await rssOf(server.child.pid!);

    const clients: Socket[] = [];
    for (let index = 0; index < 30; index += 1) {
      clients.push(await greedyClient(server.url, `GET ${tracePath} HTTP/1.1\r\nHost: x\r\n\r\n`));
      clients.push(await greedyClient(server.url, 'GET /workflow/greedy/history?pageSize=200 HTTP/1.1\r\nHost: x\r\n\r\n'));
    }
    const observed = await observe(server, baseline);
    for (const client of clients) client.destroy();
    await healthLatency(server.url); // still serving once they left
    return { clients: clients.length, traceBytes, pageBytes, seconds: SCENE_SECONDS, ...observed };
  });
}

/** The second scene: 100 connections pipelining 300 requests each, reading nothing. */
export async function pipelining(): Promise<Pipelining> {
  return withServer(async (server) => {
    const requests = 'GET /openapi.json HTTP/1.1\r\nHost: x\r\n\r\n'.repeat(300);
    const documentBytes = (await (await fetch(`${server.url}/openapi.json`)).arrayBuffer()).byteLength;
    await collectGarbage(server);
    const baseline = await rssOf(server.child.pid!);
    const before = server.answered('/openapi.json');
    const clients: Socket[] = [];
    for (let index = 0; index < 100; index += 1) clients.push(await greedyClient(server.url, requests));
    const observed = await observe(server, baseline);
    const built = server.answered('/openapi.json') - before;
    for (const client of clients) client.destroy();
    return { connections: 100, pipelined: 300, documentBytes, answersBuilt: built, seconds: SCENE_SECONDS, ...observed };
  });
}

export interface GreedyReaders extends Observed {
  clients: number;
  traceBytes: number;
  pageBytes: number;
  seconds: number;
}

export interface Pipelining extends Observed {
  connections: number;
  pipelined: number;
  documentBytes: number;
  answersBuilt: number;
  seconds: number;
}
