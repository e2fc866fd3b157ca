import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { get } from 'node:http';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from './processes.js';

/*
 * Figure 8 of `npm run bench`: greedy clients against one server process (docs/reliability.md), the scenes as
 * reported, the first two on the embedded engine's durable store (the default) and in memory (ENGINE=memory):
 *  - 30 clients asking for a 12 MB trace-log and 30 for the first page of its 12 MB history (pageSize=200), none
 *    reading a byte: goal, each keeps at most a page (HISTORY_PAGE_MAX_BYTES) beside what they share (the one parsed
 *    trace), so the server's RSS after a full collection, the clients still there, is less than a MiB a client plus
 *    64 MiB over what it was before them; its peak stays under 768 MiB of growth; and /health on a new connection
 *    answers within 1 s throughout;
 *  - 40 event streams of that history, none reading a byte: the same goal;
 *  - 100 connections each pipelining 300 `GET /openapi.json` without a token, reading nothing: goal, /health on a new
 *    connection answers within 2 s, and a connection's answers are built only as far as its client could take them.
 * Goals, measured here: the contract test tests/contract/unreadAnswers.test.ts asserts the bound with a margin on
 * every engine (Temporal included), and the deterministic parts (a slow reader holds a bounded buffer, no answer is
 * built for a client gone, at most MAX_PIPELINED_REQUESTS in flight) are tests/unit/http/greedyClients.test.ts.
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

/** `embedded`: the default engine, on its durable store (SQLite in a fresh DATA_DIR); `memory`: ENGINE=memory. */
export type SceneEngine = 'embedded' | 'memory';

async function startServer(traceDir: string, engine: SceneEngine): Promise<SceneServer> {
  // The embedded engine, whatever Temporal the test runner started for other suites.
  const { TEMPORAL_ADDRESS: _ignored, ...inherited } = process.env;
  const child = spawn(process.execPath, ['--expose-gc', '--import', 'tsx', 'tests/long/soakServer.ts'], {
    cwd: ROOT,
    env: { ...inherited, HOST: '127.0.0.1', PORT: '0', LOG_LEVEL: 'info', WORKFLOWS_DIR: 'tests/long/workflows', TRACE_DIR: traceDir, ENGINE: engine, DATA_DIR: join(traceDir, 'data') },
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

async function withServer<T>(engine: SceneEngine, body: (server: SceneServer) => Promise<T>): Promise<T> {
  const traceDir = await mkdtemp(join(tmpdir(), 'fg-greedy-'));
  const server = await startServer(traceDir, engine);
  try {
    return await body(server);
  } finally {
    await server.stop();
    await rm(traceDir, { recursive: true, force: true });
  }
}

/** A full collection in the server; its heap and RSS after it, in bytes. */
async function collectGarbage(server: SceneServer): Promise<{ heapUsed: number; rss: number }> {
  return new Promise((resolve) => {
    server.child.once('message', (message: { heapUsed: number; rss: number }) => resolve(message));
    server.child.send({ id: 1 });
  });
}

/** A closed `large_trace` run whose trace and history are about 12 MB each: its runId. */
async function largeRun(server: SceneServer): Promise<string> {
  const run = await fetch(`${server.url}/workflow/run`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ workflowName: 'large_trace', workflowId: 'greedy', input: { batches: 40, records: 300 }, timeout: 60 }),
  });
  const { runId } = (await run.json()) as { runId: string };
  if (run.status !== 200) throw new Error(`the large_trace run answered ${run.status}`);
  return runId;
}

/** The bytes of the whole history as JSON pages, following nextPageToken; and how many pages that took. */
async function historyBytes(server: SceneServer): Promise<{ bytes: number; pages: number }> {
  let bytes = 0;
  let pages = 0;
  let token: string | null = null;
  do {
    const response = await fetch(`${server.url}/workflow/greedy/history?pageSize=200${token === null ? '' : `&pageToken=${encodeURIComponent(token)}`}`);
    const text = await response.text();
    bytes += Buffer.byteLength(text);
    pages += 1;
    token = (JSON.parse(text) as { nextPageToken: string | null }).nextPageToken;
  } while (token !== null);
  return { bytes, pages };
}

/** The first scene: 60 readers of 12 MB answers (a trace-log, a history of many pages) that never read. */
export async function greedyReaders(engine: SceneEngine = 'memory'): Promise<GreedyReaders> {
  return withServer(engine, async (server) => {
    const runId = await largeRun(server);
    const tracePath = `/workflow/greedy/runs/${runId}/trace-log`;
    const traceBytes = (await (await fetch(`${server.url}${tracePath}`)).arrayBuffer()).byteLength;
    const pageBytes = (await (await fetch(`${server.url}/workflow/greedy/history?pageSize=200`)).arrayBuffer()).byteLength;
    const history = await historyBytes(server);
    if (traceBytes < 11_000_000 || history.bytes < 11_000_000) throw new Error(`answers of ${traceBytes} and ${history.bytes} bytes, not 12 MB`);
    const before = await collectGarbage(server);
    const baseline = await rssOf(server.child.pid!);

    const clients: Socket[] = [];
    for (let index = 0; index < 30; index += 1) {
      clients.push(await greedyClient(server.url, `GET ${tracePath} HTTP/1.1\r\nHost: x\r\n\r\n`));
      clients.push(await greedyClient(server.url, 'GET /workflow/greedy/history?pageSize=200 HTTP/1.1\r\nHost: x\r\n\r\n'));
    }
    const observed = await observe(server, baseline);
    const held = await collectGarbage(server);
    for (const client of clients) client.destroy();
    await healthLatency(server.url); // still serving once they left
    return {
      ...{ engine, clients: clients.length, traceBytes, pageBytes, historyBytes: history.bytes, historyPages: history.pages, seconds: SCENE_SECONDS, ...observed },
      ...{ heldAfterGcMiB: round((held.rss - baseline) / MiB), heapHeldMiB: round((held.heapUsed - before.heapUsed) / MiB) },
    };
  });
}

/** The third scene: 40 event streams of the 12 MB history, none reading a byte. */
export async function greedyEventStreams(engine: SceneEngine = 'memory'): Promise<GreedyEventStreams> {
  return withServer(engine, async (server) => {
    await largeRun(server);
    const history = await historyBytes(server);
    const before = await collectGarbage(server);
    const baseline = await rssOf(server.child.pid!);
    const clients: Socket[] = [];
    for (let index = 0; index < 40; index += 1) {
      clients.push(await greedyClient(server.url, 'GET /workflow/greedy/history HTTP/1.1\r\nHost: x\r\nAccept: text/event-stream\r\n\r\n'));
    }
    const observed = await observe(server, baseline);
    const held = await collectGarbage(server);
    for (const client of clients) client.destroy();
    await healthLatency(server.url);
    return { engine, streams: clients.length, historyBytes: history.bytes, seconds: SCENE_SECONDS, ...observed, heldAfterGcMiB: round((held.rss - baseline) / MiB), heapHeldMiB: round((held.heapUsed - before.heapUsed) / MiB) };
  });
}

/** The second scene: 100 connections pipelining 300 requests each, reading nothing. */
export async function pipelining(): Promise<Pipelining> {
  return withServer('memory', async (server) => {
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

/** What a scene's clients still hold once the server collected its garbage, they still there and reading nothing. */
interface Held {
  /** RSS over the baseline after a full collection at the end. */
  heldAfterGcMiB: number;
  /** The JS heap over the baseline after that collection. */
  heapHeldMiB: number;
}

export interface GreedyReaders extends Observed, Held {
  engine: SceneEngine;
  clients: number;
  traceBytes: number;
  /** The first history page of pageSize=200, as the readers ask for it. */
  pageBytes: number;
  /** The whole history, every page. */
  historyBytes: number;
  historyPages: number;
  seconds: number;
}

export interface GreedyEventStreams extends Observed, Held {
  engine: SceneEngine;
  streams: number;
  historyBytes: number;
  seconds: number;
}

export interface Pipelining extends Observed {
  connections: number;
  pipelined: number;
  documentBytes: number;
  answersBuilt: number;
  seconds: number;
}
