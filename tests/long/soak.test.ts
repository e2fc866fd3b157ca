import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Pool } from 'undici';
import { ROOT } from '../integration/process.js';

/*
 * The soak (issue 8): 100,000 mixed requests against one API server process (embedded engine), its RSS sampled
 * from /proc every 1,000 requests. Memory must settle: once the engine's closed-run memory is full
 * (MEMORY_MAX_CLOSED_RUNS), the last fifth of the run may not sit above the middle of it by more than the slack.
 * The heap after a full collection, asked of the server over IPC at each tenth, must stop growing; RSS, which follows
 * V8's heap sizing in a saw-tooth, may not climb past the slack. The curves are written to coverage/soak.json and
 * summarised in docs/reliability.md. Runs under `npm run test:long`.
 */

const TOTAL_REQUESTS = Number(process.env.SOAK_REQUESTS ?? 100_000);
const SAMPLE_EVERY = 1_000;
const CONNECTIONS = 16;
const CLOSED_RUNS_KEPT = 2_000;
/** Allowed growth of the last fifth over the middle fifth: GC timing alone moves RSS by a few MiB. */
const SLACK_BYTES = 24 * 1024 * 1024;
const SLACK_RATIO = 1.15;

interface Sample {
  requests: number;
  rssBytes: number;
}

interface SoakServer {
  child: ChildProcess;
  url: string;
  /** The server's heap after a full collection: what a leak would raise, unlike RSS, which follows V8's heap sizing. */
  heapAfterGc(): Promise<number>;
  stop(): Promise<number | null>;
}

async function startSoakServer(traceDir: string): Promise<SoakServer> {
  // The embedded engine, whatever Temporal the test runner started for other suites.
  const { TEMPORAL_ADDRESS: _ignored, ...inherited } = process.env;
  const child = spawn(process.execPath, ['--expose-gc', '--import', 'tsx', 'tests/long/soakServer.ts'], {
    cwd: ROOT,
    env: {
      ...inherited,
      HOST: '127.0.0.1',
      PORT: '0',
      LOG_LEVEL: 'info',
      WORKFLOWS_DIR: 'tests/fixtures/workflows',
      TRACE_DIR: traceDir,
      MEMORY_MAX_CLOSED_RUNS: String(CLOSED_RUNS_KEPT),
      ENGINE: 'memory',
    },
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  let stderr = '';
  child.stderr!.on('data', (chunk) => (stderr += chunk));
  const url = await new Promise<string>((resolve, reject) => {
    let head = '';
    const timer = setTimeout(() => reject(new Error(`soak server did not start:\n${head}\n${stderr}`)), 30_000);
    const onData = (chunk: Buffer) => {
      head += chunk;
      const line = head.split('\n').find((candidate) => candidate.includes('"soak server ready"'));
      if (!line) return;
      clearTimeout(timer);
      // From here on the access log is read and dropped: a real server logs every request too.
      child.stdout!.off('data', onData);
      child.stdout!.on('data', () => {});
      resolve(JSON.parse(line).url);
    };
    child.stdout!.on('data', onData);
    child.once('exit', (code) => reject(new Error(`soak server exited with ${code}:\n${head}\n${stderr}`)));
  });
  let probes = 0;
  return {
    child,
    url,
    heapAfterGc: () =>
      new Promise<number>((resolve) => {
        const id = ++probes;
        const onMessage = (message: { id: number; heapUsed: number }) => {
          if (message.id !== id) return;
          child.off('message', onMessage);
          resolve(message.heapUsed);
        };
        child.on('message', onMessage);
        child.send({ id });
      }),
    stop: async () => {
      if (child.exitCode === null) child.kill('SIGTERM');
      return exited;
    },
  };
}

async function rssOf(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const kib = /^VmRSS:\s+(\d+) kB$/m.exec(status)?.[1];
  if (kib === undefined) throw new Error(`no VmRSS in /proc/${pid}/status`);
  return Number(kib) * 1024;
}

type Mix = { weight: number; name: string; send: (pool: Pool, seq: number) => Promise<number> };

const json = { 'content-type': 'application/json' };

async function statusOf(pool: Pool, options: Parameters<Pool['request']>[0]): Promise<number> {
  const response = await pool.request(options);
  await response.body.dump();
  return response.statusCode;
}

/** The run the read requests ask about: the latest one a run request finished (older ones leave the engine's memory). */
interface LatestRun {
  path: string;
}

async function runAndRemember(pool: Pool, latest: LatestRun, n: number): Promise<number> {
  const response = await pool.request({ method: 'POST', path: '/workflow/run', headers: json, body: JSON.stringify({ workflowName: 'arithmetic', input: { n } }) });
  const body = (await response.body.json()) as { workflowId: string; runId: string };
  if (response.statusCode === 200) latest.path = `/workflow/${encodeURIComponent(body.workflowId)}/runs/${body.runId}`;
  return response.statusCode;
}

function requestMix(latest: LatestRun): Mix[] {
  return [
    { weight: 30, name: 'status', send: (pool) => statusOf(pool, { method: 'GET', path: `${latest.path}/status` }) },
    { weight: 10, name: 'result', send: (pool) => statusOf(pool, { method: 'GET', path: `${latest.path}/result` }) },
    { weight: 5, name: 'history', send: (pool) => statusOf(pool, { method: 'GET', path: `${latest.path}/history?pageSize=20` }) },
    { weight: 20, name: 'run', send: (pool, seq) => runAndRemember(pool, latest, seq) },
    {
      weight: 10,
      name: 'start',
      send: (pool, seq) =>
        statusOf(pool, { method: 'POST', path: '/workflow', headers: json, body: JSON.stringify({ workflowName: 'echo', input: { message: `soak ${seq}` } }) }),
    },
    { weight: 5, name: 'list runs', send: (pool) => statusOf(pool, { method: 'GET', path: '/workflow/runs?limit=20' }) },
    { weight: 5, name: 'list workflows', send: (pool) => statusOf(pool, { method: 'GET', path: '/workflow/list' }) },
    { weight: 5, name: 'unknown run', send: (pool, seq) => statusOf(pool, { method: 'GET', path: `/workflow/missing-${seq}/status` }) },
    {
      weight: 5,
      name: 'invalid body',
      send: (pool) => statusOf(pool, { method: 'POST', path: '/workflow/run', headers: json, body: '{"workflowName":"arithmetic","input":{"n":"x"}}' }),
    },
    { weight: 4, name: 'trace', send: (pool) => statusOf(pool, { method: 'GET', path: `${latest.path}/trace-log` }) },
    { weight: 1, name: 'openapi', send: (pool) => statusOf(pool, { method: 'GET', path: '/openapi.json' }) },
  ];
}

const EXPECTED_STATUS: Record<string, number> = {
  status: 200, result: 200, history: 200, run: 200, start: 200, 'list runs': 200, 'list workflows': 200,
  'unknown run': 404, 'invalid body': 400, trace: 200, openapi: 200,
};

test(`soak: ${TOTAL_REQUESTS} mixed requests, RSS settles, no 5xx, every answer the expected one`, async () => {
  const traceDir = await mkdtemp(join(tmpdir(), 'fg-soak-'));
  const server = await startSoakServer(traceDir);
  const pool = new Pool(server.url, { connections: CONNECTIONS, pipelining: 1 });
  try {
    const latest: LatestRun = { path: '' };
    assert.is(await runAndRemember(pool, latest, 1), 200);

    const mix = requestMix(latest);
    const wheel = mix.flatMap((entry) => Array.from({ length: entry.weight }, () => entry));
    const unexpected = new Map<string, number>();
    const counts = new Map<string, number>();
    const samples: Sample[] = [{ requests: 0, rssBytes: await rssOf(server.child.pid!) }];
    /** Heap after a full collection at each tenth of the run (the collection pauses the server briefly). */
    const heaps: { requests: number; heapBytes: number }[] = [];
    const HEAP_EVERY = Math.max(1, Math.round(TOTAL_REQUESTS / 10 / SAMPLE_EVERY)) * SAMPLE_EVERY;
    let sent = 0;
    let done = 0;
    let nextSample = SAMPLE_EVERY;
    let sampling: Promise<void> = Promise.resolve();
    const startedAt = Date.now();

    const lane = async () => {
      while (sent < TOTAL_REQUESTS) {
        const seq = sent++;
        const entry = wheel[(seq * 37) % wheel.length]!;
        const status = await entry.send(pool, seq);
        counts.set(entry.name, (counts.get(entry.name) ?? 0) + 1);
        if (status !== EXPECTED_STATUS[entry.name]) unexpected.set(`${entry.name} → ${status}`, (unexpected.get(`${entry.name} → ${status}`) ?? 0) + 1);
        done += 1;
        if (done >= nextSample) {
          const at = nextSample;
          nextSample += SAMPLE_EVERY;
          sampling = sampling.then(async () => {
            samples.push({ requests: at, rssBytes: await rssOf(server.child.pid!) });
            if (at % HEAP_EVERY === 0) heaps.push({ requests: at, heapBytes: await server.heapAfterGc() });
          });
        }
      }
    };
    await Promise.all(Array.from({ length: CONNECTIONS }, lane));
    await sampling;
    const seconds = (Date.now() - startedAt) / 1000;

    const mib = (bytes: number) => Math.round((bytes / 1024 / 1024) * 10) / 10;
    const curve = samples.map((sample) => ({ requests: sample.requests, rssMiB: mib(sample.rssBytes) }));
    await mkdir(join(ROOT, 'coverage'), { recursive: true });
    const heapCurve = heaps.map((point) => ({ requests: point.requests, heapMiB: mib(point.heapBytes) }));
    await writeFile(join(ROOT, 'coverage', 'soak.json'), `${JSON.stringify({ requests: TOTAL_REQUESTS, seconds, counts: Object.fromEntries(counts), curve, heapCurve }, null, 1)}\n`);
    const everyTenth = curve.filter((_, index) => index % 10 === 0 || index === curve.length - 1);
    process.stdout.write(`\nsoak: ${TOTAL_REQUESTS} requests in ${seconds.toFixed(1)} s; RSS MiB by requests: ${everyTenth.map((p) => `${p.requests}:${p.rssMiB}`).join(' ')}\n`);
    process.stdout.write(`soak: heap after GC, MiB by requests: ${heapCurve.map((p) => `${p.requests}:${p.heapMiB}`).join(' ')}\n`);

    assert.equal([...unexpected], [], 'every request got the answer its kind expects (no 5xx)');
    assert.ok(server.child.exitCode === null, 'the server is still running');
    // The decisive check: once the engine's closed-run memory is full, the live heap stops growing.
    assert.ok(heaps.length >= 2, `at least two heap samples (SOAK_REQUESTS=${TOTAL_REQUESTS} is too few)`);
    const heapAtHalf = heaps[Math.floor((heaps.length - 1) / 2)]!.heapBytes;
    const heapAtEnd = heaps.at(-1)!.heapBytes;
    assert.ok(heapAtEnd <= heapAtHalf * 1.1 + 4 * 1024 * 1024, `heap after GC settles: ${mib(heapAtHalf)} MiB at half, ${mib(heapAtEnd)} MiB at the end`);
    const fifth = Math.floor(samples.length / 5);
    const peak = (from: number, to: number) => Math.max(...samples.slice(from, to).map((sample) => sample.rssBytes));
    const middle = peak(2 * fifth, 3 * fifth);
    const last = peak(4 * fifth, samples.length);
    assert.ok(
      last <= Math.max(middle * SLACK_RATIO, middle + SLACK_BYTES),
      `RSS settles: the last fifth peaks at ${mib(last)} MiB, the middle fifth at ${mib(middle)} MiB`,
    );
  } finally {
    await pool.close();
    const code = await server.stop();
    await rm(traceDir, { recursive: true, force: true });
    assert.is(code, 0, 'the server shut down cleanly');
  }
});

test.run();
