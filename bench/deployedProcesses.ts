// The two sides of figure 9 as a deployment and an application run them, each in a process of its own:
// - the API exactly as `npm start` runs it (`flowgate serve` on the compiled dist/, plain node, no bench probe in it),
//   in the default configuration: access log on (its lines drained from stdout, as a log collector would), a token
//   set; its CPU read from outside, /proc/<pid>/stat (user + system time of every thread);
// - the raw @temporalio/client, connected once and kept warm across rounds (processes/rawTemporalRounds.ts).
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import type { LoadResult } from './processes/load.js';
import type { RawRound } from './processes/rawRound.js';
import { ROOT } from './processes.js';

/** Clock ticks per second of /proc/<pid>/stat's times (USER_HZ; 100 on Linux unless the kernel says otherwise). */
const CLOCK_TICKS = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;

/** A process's CPU time so far (user + system, all threads), in µs, as the kernel counts it. */
export async function processCpuMicros(pid: number): Promise<number> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
  // Fields after the command name, which is in parentheses and may itself hold spaces.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const utime = Number(fields[11]);
  const stime = Number(fields[12]);
  return ((utime + stime) * 1_000_000) / CLOCK_TICKS;
}

export interface DeployedApi {
  url: string;
  token: string;
  pid: number;
  cpuMicros(): Promise<number>;
  /** The heap in use right after a full collection, in bytes (only when started with `heapProbe`). */
  heapAfterGc(): Promise<number>;
  /** Bytes V8 allocated since the process started, exact as of a full collection (only when started with `allocations`). */
  allocatedBytes(): Promise<number>;
  stop(): Promise<void>;
}

function stopChild(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
    setTimeout(() => child.kill('SIGKILL'), 10_000).unref();
  });
}

/** Spawns a server process that prints `serving on <url>` on stderr; resolves with the child and the URL once it does. */
async function spawnServing(args: string[], env: NodeJS.ProcessEnv): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, args, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout!.resume(); // the access log, read and dropped
  const url = await new Promise<string>((resolve, reject) => {
    let stderr = '';
    const onData = (chunk: Buffer) => {
      stderr += chunk;
      const served = /serving on (http:\/\/[^\s]+)/.exec(stderr)?.[1];
      if (!served) return;
      child.stderr!.off('data', onData);
      child.stderr!.resume(); // read and dropped until `heapAfterGc` listens
      resolve(served);
    };
    child.stderr!.on('data', onData);
    child.once('exit', (code) => reject(new Error(`${args.join(' ')} exited with ${code} before it listened:\n${stderr}`)));
  });
  return { child, url };
}

const BENCH_TOKEN = 'bench-deployment-token';

export interface ProbeOptions {
  /** processes/heapProbe.mjs preloaded and gc exposed: `heapAfterGc` answers. */
  heapProbe?: boolean;
  /** The probe counting allocations too (processes/allocations.mjs): `allocatedBytes` answers. */
  allocations?: boolean;
}

const probeFlags = ({ heapProbe = false, allocations = false }: ProbeOptions): string[] =>
  heapProbe || allocations ? ['--expose-gc', '--import', './bench/processes/heapProbe.mjs'] : [];

/** Asks the probe (SIGUSR2) for its line on stderr: the heap after a full collection, and the bytes allocated. */
function probe(child: ChildProcess, options: ProbeOptions): Promise<{ heapAfterGc: number; allocatedBytes?: number }> {
  return new Promise((resolve, reject) => {
    // Without the probe, SIGUSR2 would end the process.
    if (!options.heapProbe && !options.allocations) return reject(new Error('the process was started without the heap probe'));
    let buffered = '';
    const onData = (chunk: Buffer) => {
      buffered += chunk;
      const answer = /\{"heapAfterGc":(\d+)(?:,"allocatedBytes":(\d+))?\}/.exec(buffered);
      if (!answer) return;
      child.stderr!.off('data', onData);
      resolve({ heapAfterGc: Number(answer[1]), ...(answer[2] === undefined ? {} : { allocatedBytes: Number(answer[2]) }) });
    };
    child.stderr!.on('data', onData);
    child.kill('SIGUSR2');
  });
}

/** The API's and the floor's handle: CPU from /proc, the probe's readings, a stop. */
function deployed(child: ChildProcess, url: string, options: ProbeOptions): DeployedApi {
  const pid = child.pid!;
  return {
    url,
    token: BENCH_TOKEN,
    pid,
    cpuMicros: () => processCpuMicros(pid),
    heapAfterGc: async () => (await probe(child, options)).heapAfterGc,
    allocatedBytes: async () => {
      const { allocatedBytes } = await probe(child, options);
      if (allocatedBytes === undefined) throw new Error('allocatedBytes needs the process started with { allocations: true }');
      return allocatedBytes;
    },
    stop: () => stopChild(child),
  };
}

/**
 * `flowgate serve` on Temporal at `address`, default configuration with a token; resolves once it listens. The probe
 * options preload processes/heapProbe.mjs (and expose gc); nothing else changes.
 */
export async function startDeployedApi(address: string, traceDir: string, options: ProbeOptions = {}): Promise<DeployedApi> {
  // BENCH_PROFILE=<dir>: a V8 CPU profile of the API written there when it stops (bench/profileSummary.ts reads it).
  const profile = process.env.BENCH_PROFILE ? ['--cpu-prof', '--cpu-prof-dir', process.env.BENCH_PROFILE] : [];
  const { child, url } = await spawnServing([...profile, ...probeFlags(options), 'dist/composition/cli/main.js', 'serve', '--port', '0'], {
    PATH: process.env.PATH ?? '',
    TEMPORAL_ADDRESS: address,
    TRACE_DIR: traceDir,
    API_AUTH_TOKEN: BENCH_TOKEN,
    ...(options.allocations ? { BENCH_ALLOCATIONS: '1' } : {}),
  });
  return deployed(child, url, options);
}

/** Figure 9's floor (processes/bareTemporalApi.mjs): bare node:http over the raw client, the same token required. */
export async function startBareTemporalApi(address: string, options: ProbeOptions = {}): Promise<DeployedApi> {
  const script = ['bench/processes/bareTemporalApi.mjs', JSON.stringify({ address, token: BENCH_TOKEN })];
  const env = { PATH: process.env.PATH ?? '', ...(options.allocations ? { BENCH_ALLOCATIONS: '1' } : {}) };
  const { child, url } = await spawnServing([...probeFlags(options), ...script], env);
  return deployed(child, url, options);
}

export interface RawClientProcess {
  round(spec: RawRound): Promise<LoadResult>;
  /** As DeployedApi's (only when started with `allocations`). */
  allocatedBytes(): Promise<number>;
  stop(): Promise<void>;
}

/** The raw client in its long-lived process; `round` runs one measuring round in it. */
export async function startRawClient(address: string, { allocations = false }: Pick<ProbeOptions, 'allocations'> = {}): Promise<RawClientProcess> {
  const child = spawn(process.execPath, [...(allocations ? ['--expose-gc'] : []), '--import', 'tsx', 'bench/processes/rawTemporalRounds.ts', JSON.stringify({ address, allocations })], {
    cwd: ROOT,
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const lines = createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
  const next = async (): Promise<Record<string, unknown>> => {
    const line = await lines.next();
    if (line.done) throw new Error('the raw client process ended');
    return JSON.parse(line.value) as Record<string, unknown>;
  };
  await next(); // {ready: true}
  let queue: Promise<unknown> = Promise.resolve();
  const ask = (message: unknown): Promise<Record<string, unknown>> => {
    const answer = queue.then(async () => {
      child.stdin!.write(`${JSON.stringify(message)}\n`);
      return next();
    });
    queue = answer.catch(() => {});
    return answer;
  };
  return {
    round: async (spec) => (await ask(spec)) as unknown as LoadResult,
    allocatedBytes: async () => {
      if (!allocations) throw new Error('allocatedBytes needs the raw client started with { allocations: true }');
      return Number((await ask({ allocatedBytes: true })).allocatedBytes);
    },
    stop: async () => {
      child.stdin!.end();
      await stopChild(child);
    },
  };
}
