import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));

export interface ServerProcess {
  child: ChildProcess;
  url: string;
  stdout: () => string;
  stderr: () => string;
  /** Resolves with the exit code (kills the process first unless `signal` is null). */
  stop(signal?: NodeJS.Signals | null): Promise<number | null>;
}

/** The `flowgate` command from source (what `npm start` runs, built). */
export const CLI = ['--import', 'tsx', 'composition/cli/main.ts'];

/**
 * Starts `flowgate serve --workflows examples/workflows` (what `npm start` runs) and waits for its "listening" log line.
 * On the embedded engine it keeps its runs in a data directory of its own (removed once it exited), unless `env` names
 * one: several servers of a suite never share the repository's `.flowgate`.
 */
export function startServerProcess(env: Record<string, string>): Promise<ServerProcess> {
  const ownDataDir = env.DATA_DIR === undefined ? mkdtempSync(join(tmpdir(), 'flowgate-process-data-')) : undefined;
  const child = spawn(process.execPath, [...CLI, 'serve', '--workflows', 'examples/workflows'], {
    cwd: ROOT,
    env: { ...process.env, HOST: '127.0.0.1', PORT: '0', ...(ownDataDir ? { DATA_DIR: ownDataDir } : {}), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stderr!.on('data', (chunk) => (stderr += chunk));
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code) => {
      if (ownDataDir) rmSync(ownDataDir, { recursive: true, force: true });
      resolve(code);
    }),
  );
  const stop = async (signal: NodeJS.Signals | null = 'SIGTERM') => {
    if (child.exitCode === null && signal) child.kill(signal);
    return exited;
  };
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`server did not start in time:\n${stdout}\n${stderr}`));
    }, 30_000);
    child.stdout!.on('data', (chunk) => {
      stdout += chunk;
      const line = stdout.split('\n').find((candidate) => candidate.includes('"flowgate listening"'));
      if (line) {
        clearTimeout(timer);
        resolve({ child, url: JSON.parse(line).url, stdout: () => stdout, stderr: () => stderr, stop });
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code} before listening:\n${stdout}\n${stderr}`));
    });
  });
}

/** Runs a command to completion. */
export function runCommand(command: string, args: string[], env: Record<string, string> = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}
