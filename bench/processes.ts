// Child processes of the bench: servers that print one JSON line when ready (and answer IPC probes), and
// one-shot measuring processes that print their result as their last JSON line.
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../', import.meta.url));
/** Servers and in-process references run the compiled dist/ under plain node, as `npm start` does; clients run TS. */
const nodeArgs = (entry: string): string[] => (entry.endsWith('.mjs') || entry.startsWith('dist/') ? ['--expose-gc'] : ['--expose-gc', '--import', 'tsx']);

export interface ProbeAnswer {
  peak: number;
  current: number;
  cpu: number;
  loop?: { p50: number; p99: number; max: number; samples: number };
  commits?: { count: number; p50: number; p99: number; max: number; totalMs: number; runsMedian: number; runsMax: number };
}

export interface ServerProcess {
  ready: Promise<Record<string, any>>;
  /**
   * IPC probe of bench/processes/rssProbe.mjs: RSS in bytes, `cpu` the process's CPU time so far in µs; after
   * 'loop:stop', the event loop's delay since 'loop:start' and the durable store's commits meanwhile (ms).
   */
  ask(command: 'rss:reset' | 'rss:read' | 'gc' | 'cpu:read' | 'loop:start' | 'loop:stop'): Promise<ProbeAnswer>;
  stop(): Promise<void>;
}

/**
 * BENCH_PROFILE=<dir>: the flowgate server processes write a V8 CPU profile there when they stop
 * (summarise one with bench/profileSummary.ts).
 */
export function startServer(entry: string, env: Record<string, string> = {}, args: string[] = []): ServerProcess {
  const profile = process.env.BENCH_PROFILE && entry.includes('flowgate') ? ['--cpu-prof', '--cpu-prof-dir', process.env.BENCH_PROFILE] : [];
  const child = spawn(process.execPath, [...nodeArgs(entry), ...profile, entry, ...args], { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit', 'ipc'] });
  const ready = firstJsonLine(child, entry);
  let nextId = 0;
  return {
    ready,
    ask: (command) =>
      new Promise((resolve) => {
        const id = ++nextId;
        const onMessage = (message: ProbeAnswer & { id: number }) => {
          if (message.id !== id) return;
          child.off('message', onMessage);
          resolve(message);
        };
        child.on('message', onMessage);
        child.send({ id, command });
      }),
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
        setTimeout(() => child.kill('SIGKILL'), 10_000).unref();
      }),
  };
}

/** Runs a measuring process to its end; its last JSON line is the result. */
export function runToEnd<T>(entry: string, argument: unknown, env: Record<string, string> = {}): Promise<T> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...nodeArgs(entry), entry, JSON.stringify(argument)], { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.once('exit', (code) => {
      const last = output.trim().split('\n').filter((line) => line.startsWith('{')).at(-1);
      if (code === 0 && last) resolve(JSON.parse(last) as T);
      else reject(new Error(`${entry} exited with ${code}`));
    });
  });
}

/** A long-running helper process (SSE followers): its first JSON line when ready, its last when stopped. */
export function startHelper(entry: string, argument: unknown): { ready: Promise<Record<string, any>>; stop(): Promise<Record<string, any>> } {
  const child = spawn(process.execPath, [...nodeArgs(entry), entry, JSON.stringify(argument)], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  return {
    ready: firstJsonLine(child, entry),
    stop: () =>
      new Promise((resolve) => {
        child.once('exit', () => resolve(JSON.parse(output.trim().split('\n').at(-1) ?? '{}')));
        child.kill('SIGTERM');
      }),
  };
}

/**
 * The first JSON line; what follows (a server's access log) is read and dropped, so a logging server under load
 * neither blocks on a full pipe nor costs the bench's own process more than the reading.
 */
function firstJsonLine(child: ChildProcess, entry: string): Promise<Record<string, any>> {
  return new Promise((resolve, reject) => {
    let buffered = '';
    let found = false;
    child.stdout!.on('data', (chunk) => {
      // Log lines (a server at LOG_LEVEL=info) keep coming: read and dropped, never kept.
      if (found) return;
      buffered += chunk;
      for (const candidate of buffered.split('\n')) {
        if (!candidate.startsWith('{') || !candidate.endsWith('}')) continue;
        const parsed = JSON.parse(candidate) as Record<string, any>;
        if ('msg' in parsed) continue;
        found = true;
        buffered = '';
        resolve(parsed);
        return;
      }
    });
    child.once('exit', (code) => reject(new Error(`${entry} exited with ${code} before it was ready`)));
  });
}
