// `flowgate serve` on the durable embedded engine as a child process (processes.ts), for the fault tests that kill it,
// refuse its data directory or fill its disk; and the checks those tests make of what the engine kept: every run's
// history numbered 1..n, and no completed step executed again (the fixture steps count their own executions).
import { spawnSync } from 'node:child_process';
import { readdir, stat } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { Agent, request } from 'undici';
import { STEP_COUNT_DIR_VARIABLE, stepCountFile } from '../fixtures/faults/steps/countedStep.js';
import { startApiProcess, startNodeProcess, type Exit, type NodeProcess, type NodeProcessOptions } from './processes.js';
import { eventually } from '../support/eventually.js';

/** The workflows whose steps count their executions (tests/fixtures/faults/durableWorkflows). */
export const DURABLE_WORKFLOWS_DIR = fileURLToPath(new URL('../fixtures/faults/durableWorkflows/', import.meta.url));

export interface EmbeddedServerDirs {
  dataDir: string;
  traceDir: string;
  /** Where `counted_step` counts its executions. */
  countDir: string;
}

export interface EmbeddedServer extends NodeProcess {
  url: string;
  /** From spawning the process to its "flowgate listening" line. */
  listeningMs: number;
  /** From spawning the process to the first `GET /ready` answered 200. */
  readyMs: number;
  /** The open runs it resumed, as its start line on stderr says. */
  resumed: number;
}

/**
 * `flowgate serve` (the CLI, from source) on the durable embedded engine in `dirs.dataDir`, serving the counted
 * workflows, outbound calls allowed to 127.0.0.1 only (callback receivers of the tests). Resolves once `/ready` is 200.
 */
export async function startEmbeddedServer(dirs: EmbeddedServerDirs, env: Record<string, string> = {}, options: NodeProcessOptions = {}): Promise<EmbeddedServer> {
  const spawnedAt = Date.now();
  const proc = await startApiProcess({ ...embeddedServerEnv(dirs), ...env }, options);
  const listeningMs = Date.now() - spawnedAt;
  try {
    await waitFor(`${proc.url}/ready answering 200`, 30_000, async () => {
      if (!proc.isRunning()) throw new Error(`flowgate serve exited before it was ready:\n${proc.stderr()}`);
      return (await status(`${proc.url}/ready`)) === 200;
    });
    const readyMs = Date.now() - spawnedAt;
    const line = await waitFor('the "serving on" line on stderr', 10_000, async () => /(\d+) open runs? resumed/.exec(proc.stderr()));
    return Object.assign(proc, { listeningMs, readyMs, resumed: Number(line[1]) });
  } catch (error) {
    await proc.stop('SIGKILL');
    throw error;
  }
}

/** The environment of `flowgate serve` on the durable engine in `dirs.dataDir`: loopback only, counted workflows. */
export function embeddedServerEnv(dirs: EmbeddedServerDirs): Record<string, string> {
  return {
    HOST: '127.0.0.1',
    PORT: '0',
    ENGINE: 'embedded',
    DATA_DIR: dirs.dataDir,
    WORKFLOWS_DIR: DURABLE_WORKFLOWS_DIR,
    TRACE_DIR: dirs.traceDir,
    [STEP_COUNT_DIR_VARIABLE]: dirs.countDir,
    OUTBOUND_ALLOWLIST: '127.0.0.1',
    OUTBOUND_ALLOW_PUBLIC: 'off',
    SHUTDOWN_GRACE_MS: '3000',
  };
}

/**
 * Runs `flowgate serve` expecting it to refuse to start: resolves with its exit, what it wrote and how long it took;
 * fails if it is still running after `timeoutMs` (it is then killed).
 */
export async function serveUntilExit(env: Record<string, string>, options: NodeProcessOptions = {}, timeoutMs = 30_000): Promise<{ exit: Exit; stderr: string; stdout: string; ms: number }> {
  const spawnedAt = Date.now();
  const proc = startNodeProcess('composition/cli/main.ts', env, ['serve'], options);
  const timer = setTimeout(() => void proc.stop('SIGKILL'), timeoutMs);
  const exit = await proc.exited;
  clearTimeout(timer);
  const ms = Date.now() - spawnedAt;
  if (exit.signal === 'SIGKILL') throw new Error(`flowgate serve was still running after ${timeoutMs} ms:\n${proc.stdout()}\n${proc.stderr()}`);
  return { exit, stderr: proc.stderr(), stdout: proc.stdout(), ms };
}

/** The status of a GET, 0 when it got no answer. */
async function status(url: string): Promise<number> {
  try {
    const response = await request(url);
    await response.body.dump();
    return response.statusCode;
  } catch {
    return 0;
  }
}

/** `eventually` asking every 50 ms, for a truthy answer (these suites' probes answer `null` for nothing yet). */
export function waitFor<T>(what: string, timeoutMs: number, probe: () => Promise<T | undefined | null | false>): Promise<T> {
  return eventually(what, async () => (await probe()) || undefined, { timeoutMs, intervalMs: 50 });
}

/**
 * The launcher (NodeProcessOptions.launcher) that runs `flowgate serve` in a mount namespace of its own with a tmpfs
 * mounted on `dir` (`mountOptions`: `ro`, `size=4m`): the test, root here, cannot make a directory unwritable by its
 * permission bits, nor fill the machine's disk. The mount ends with the process. The test process reaches the
 * namespace's files through /proc/<pid>/root.
 */
export function tmpfsLauncher(dir: string, mountOptions: string): string[] {
  return inPrivateMounts('mount -t tmpfs -o "$1" flowgate-test "$2"', [mountOptions, dir]);
}

/** The launcher that runs `flowgate serve` where `dir`, with what it holds, is mounted read-only (a bind mount). */
export function readOnlyLauncher(dir: string): string[] {
  return inPrivateMounts('mount --bind "$1" "$1" && mount -o remount,bind,ro "$1"', [dir]);
}

/** `script` (its arguments `$1`...) run as root of a private mount namespace, then the command after it exec'd. */
function inPrivateMounts(script: string, args: string[]): string[] {
  return [...unshareMounts(), 'sh', '-c', `${script} && shift ${args.length} && exec "$@"`, 'sh', ...args];
}

/** A private mount namespace; for a user other than root, inside a user namespace where it is root (and may mount). */
function unshareMounts(): string[] {
  return ['unshare', ...(process.getuid?.() === 0 ? [] : ['--map-root-user']), '--mount', '--propagation', 'private'];
}

/**
 * Whether this machine lets the tests mount a tmpfs in a private mount namespace. Under CI it must: there the missing
 * ability is an error, never a skip.
 */
export function privateMountsWork(probeDir: string): boolean {
  const [unshare, ...options] = unshareMounts();
  const probe = spawnSync(unshare!, [...options, 'sh', '-c', 'mount -t tmpfs -o size=1m flowgate-test "$1"', 'sh', probeDir], { encoding: 'utf8' });
  if (probe.status === 0) return true;
  const why = probe.error ? probe.error.message : (probe.stderr || `exit ${probe.status}`).trim();
  if (process.env.CI === 'true') throw new Error(`a tmpfs in a private mount namespace (${unshareMounts().join(' ')}, mount) is needed and failed: ${why}`);
  process.stdout.write(`\n  SKIPPED: ${unshareMounts().join(' ')} and mount do not work here (${why}); under CI=true this fails\n`);
  return false;
}

/** The path of `path` (absolute) as a process in another mount namespace sees it. */
export function inNamespaceOf(pid: number, path: string): string {
  return `/proc/${pid}/root${path}`;
}

export interface RunView {
  workflowId: string;
  runId: string;
  workflowName: string;
  status: string;
  startedAt: string;
  closedAt: string | null;
}

interface HistoryEvent {
  eventId: number;
  type: string;
  time: string;
  stepName?: string;
  attributes: Record<string, any>;
}

/** GET `url`: its status and its parsed JSON body. */
export async function getJson(agent: Agent, url: string): Promise<{ status: number; body: any }> {
  const response = await request(url, { dispatcher: agent });
  const text = await response.body.text();
  return { status: response.statusCode, body: text ? JSON.parse(text) : undefined };
}

/** Every run the server lists (all pages), newest first. */
export async function listAllRuns(agent: Agent, baseUrl: string, query = ''): Promise<RunView[]> {
  const runs: RunView[] = [];
  let token: string | null = null;
  do {
    const page = await getJson(agent, `${baseUrl}/workflow/runs?limit=1000${query}${token ? `&pageToken=${encodeURIComponent(token)}` : ''}`);
    if (page.status !== 200) throw new Error(`GET /workflow/runs: ${page.status} ${JSON.stringify(page.body)}`);
    runs.push(...(page.body.runs as RunView[]));
    token = page.body.nextPageToken;
  } while (token);
  return runs;
}

/** A run's whole history (all pages). */
export async function historyOf(agent: Agent, baseUrl: string, run: Pick<RunView, 'workflowId' | 'runId'>): Promise<HistoryEvent[]> {
  const events: HistoryEvent[] = [];
  let token: string | null = null;
  do {
    const path = `/workflow/${encodeURIComponent(run.workflowId)}/runs/${run.runId}/history?pageSize=200${token ? `&pageToken=${encodeURIComponent(token)}` : ''}`;
    const page = await getJson(agent, `${baseUrl}${path}`);
    if (page.status !== 200) throw new Error(`GET ${path}: ${page.status} ${JSON.stringify(page.body)}`);
    events.push(...(page.body.events as HistoryEvent[]));
    token = page.body.nextPageToken;
  } while (token);
  return events;
}

export interface StoredRunsCheck {
  runs: number;
  events: number;
  stepsCompleted: number;
  /** Step executions the fixture counted beyond one per completed step: attempts lost to the kill, retried. */
  executionsRetried: number;
  /** Every broken promise found, one line each; empty when all hold. */
  problems: string[];
}

/**
 * Reads the history of every run in `runs` and checks what a durable engine must keep:
 * - event ids are 1..n, without gap or repeat;
 * - each step completes once, and the execution count its completion returned is the step's total: a completed step
 *   executed again would have counted once more after its completion was recorded;
 * - every step execution the fixture counted (a file in `countDir`, keyed by run and call) belongs to a step that
 *   completed in one of these runs: no run executed steps that the store then forgot.
 * `ownsKey` picks the count files of these runs (the count directory may hold other tests' runs).
 */
export async function checkStoredRuns(agent: Agent, baseUrl: string, runs: readonly RunView[], countDir: string, ownsKey: (key: string) => boolean): Promise<StoredRunsCheck> {
  const problems: string[] = [];
  const completedCounts = new Map<string, number>();
  let events = 0;
  let executionsRetried = 0;
  const histories = await mapLimit(runs, 16, (run) => historyOf(agent, baseUrl, run));
  for (const [index, run] of runs.entries()) {
    const history = histories[index]!;
    events += history.length;
    const ids = history.map((event) => event.eventId);
    if (ids.some((id, position) => id !== position + 1)) problems.push(`${run.workflowId} ${run.runId}: event ids ${compactIds(ids)}, not 1..${ids.length}`);
    for (const event of history) {
      if (event.type !== 'step_completed' || event.stepName !== 'counted_step') continue;
      const { key, count } = event.attributes.output as { key: string; count: number };
      if (completedCounts.has(key)) problems.push(`${key}: completed twice (counts ${completedCounts.get(key)} and ${count})`);
      completedCounts.set(key, count);
    }
  }
  for (const [key, count] of completedCounts) {
    const executions = await stat(stepCountFile(countDir, key)).then(
      (file) => file.size,
      () => 0,
    );
    if (executions !== count) problems.push(`${key}: its completion counted ${count} executions, the step executed ${executions} times`);
    executionsRetried += Math.max(0, executions - 1);
  }
  for (const file of await readdir(countDir)) {
    const key = decodeURIComponent(file);
    if (ownsKey(key) && !completedCounts.has(key)) problems.push(`${key}: executed, but no stored run completed it`);
  }
  return { runs: runs.length, events, stepsCompleted: completedCounts.size, executionsRetried, problems };
}

/** `1..40, 42..57` for a list of ids: the gaps and repeats of a broken history at a glance. */
function compactIds(ids: number[]): string {
  const parts: string[] = [];
  let start = ids[0];
  for (let index = 1; index <= ids.length; index += 1) {
    if (ids[index] === ids[index - 1]! + 1) continue;
    parts.push(start === ids[index - 1] ? `${start}` : `${start}..${ids[index - 1]}`);
    start = ids[index];
  }
  return parts.join(', ');
}

/** `work` over `items`, at most `limit` at a time, results in order. */
export async function mapLimit<T, R>(items: readonly T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, async () => {
      while (next < items.length) {
        const index = next++;
        results[index] = await work(items[index]!);
      }
    }),
  );
  return results;
}

/** A small seeded generator (mulberry32): the same seed draws the same kill points and mix. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}
