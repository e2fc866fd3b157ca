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

/**
 * `flowgate serve` on Temporal at `address`, default configuration with a token; resolves once it listens. With
 * `heapProbe`, processes/heapProbe.mjs is preloaded (and gc exposed) so `heapAfterGc` can ask; nothing else changes.
 */
export async function startDeployedApi(address: string, traceDir: string, { heapProbe = false, env = {} as Record<string, string> } = {}): Promise<DeployedApi> {
  const token = BENCH_TOKEN;
  // BENCH_PROFILE=<dir>: a V8 CPU profile of the API written there when it stops (bench/profileSummary.ts reads it).
  const profile = process.env.BENCH_PROFILE ? ['--cpu-prof', '--cpu-prof-dir', process.env.BENCH_PROFILE] : [];
  const probe = heapProbe ? ['--expose-gc', '--import', './bench/processes/heapProbe.mjs'] : [];
  const { child, url } = await spawnServing([...profile, ...probe, 'dist/composition/cli/main.js', 'serve', '--port', '0'], {
    PATH: process.env.PATH ?? '',
    TEMPORAL_ADDRESS: address,
    TRACE_DIR: traceDir,
    API_AUTH_TOKEN: token,
    ...env,
  });
  const pid = child.pid!;
  const heapAfterGc = () =>
    new Promise<number>((resolve, reject) => {
      // Without the probe, SIGUSR2 would end the API.
      if (!heapProbe) return reject(new Error('heapAfterGc needs the API started with { heapProbe: true }'));
      let buffered = '';
      const onData = (chunk: Buffer) => {
        buffered += chunk;
        const answer = /\{"heapAfterGc":(\d+)\}/.exec(buffered);
        if (!answer) return;
        child.stderr!.off('data', onData);
        resolve(Number(answer[1]));
      };
      child.stderr!.on('data', onData);
      child.kill('SIGUSR2');
    });
  return { url, token, pid, cpuMicros: () => processCpuMicros(pid), heapAfterGc, stop: () => stopChild(child) };
}

/** Figure 9's floor (processes/bareTemporalApi.mjs): bare node:http over the raw client, the same token required. */
export async function startBareTemporalApi(address: string): Promise<DeployedApi> {
  const token = BENCH_TOKEN;
  const { child, url } = await spawnServing(['bench/processes/bareTemporalApi.mjs', JSON.stringify({ address, token })], { PATH: process.env.PATH ?? '' });
  const pid = child.pid!;
  const heapAfterGc = () => Promise.reject(new Error('the bare API has no heap probe'));
  return { url, token, pid, cpuMicros: () => processCpuMicros(pid), heapAfterGc, stop: () => stopChild(child) };
}

export interface RawClientProcess {
  round(spec: RawRound): Promise<LoadResult>;
  stop(): Promise<void>;
}

/** The raw client in its long-lived process; `round` runs one measuring round in it. */
export async function startRawClient(address: string): Promise<RawClientProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'bench/processes/rawTemporalRounds.ts', JSON.stringify({ address })], {
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
  return {
    round: (spec) => {
      const answer = queue.then(async () => {
        child.stdin!.write(`${JSON.stringify(spec)}\n`);
        return (await next()) as unknown as LoadResult;
      });
      queue = answer.catch(() => {});
      return answer;
    },
    stop: async () => {
      child.stdin!.end();
      await stopChild(child);
    },
  };
}
