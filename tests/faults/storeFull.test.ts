// Fault: the durable store's disk fills up while `flowgate serve` serves. The data directory is a 4 MiB tmpfs in a
// private mount namespace of the server's own; the test fills it with a file it writes through /proc/<pid>/root (the
// namespace's view). A request whose write cannot be committed must be answered 503 and leave nothing behind; what
// was acknowledged before must survive and complete once space is freed, without a completed step running again.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, open, readFile, rm, stat, unlink } from 'node:fs/promises';
import { stepCountFile } from '../fixtures/faults/steps/countedStep.js';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, request } from 'undici';
import {
  checkStoredRuns,
  getJson,
  historyOf,
  inNamespaceOf,
  listAllRuns,
  privateMountsWork,
  startEmbeddedServer,
  tmpfsLauncher,
  waitFor,
  type EmbeddedServer,
} from './embeddedServers.js';

const TMPFS_SIZE = '4m';
const BEFORE = { wait: 10, sleep: 10, two: 10 } as const;
/** The sleeps end while the disk is full, so their runs' timers and next steps meet the failing writes. */
const SLEEP_MS = { min: 1_000, max: 2_500 } as const;

interface Context {
  setupError?: unknown;
  dir: string;
  server?: EmbeddedServer;
  agent?: Agent;
}

const full = suite<Context>('the durable store’s disk full while serving');

full.before(async (context) => {
  context.dir = await mkdtemp(join(tmpdir(), 'fg-fault-full-'));
  context.agent = new Agent({ connections: 64 });
});

full.after(async (context) => {
  await context.server?.stop('SIGKILL');
  await context.agent?.close();
  await rm(context.dir, { recursive: true, force: true });
});

interface Answer {
  status: number;
  body: any;
  headers: Record<string, unknown>;
}

async function post(agent: Agent, url: string, body: unknown): Promise<Answer> {
  const response = await request(url, { method: 'POST', dispatcher: agent, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const text = await response.body.text();
  return { status: response.statusCode, body: text ? JSON.parse(text) : undefined, headers: response.headers };
}

/** Appends zeros to `path` until the file system says it is full; returns how many bytes went in. */
async function fillUp(path: string): Promise<number> {
  const file = await open(path, 'w');
  const chunk = Buffer.alloc(64 * 1024);
  let written = 0;
  try {
    for (;;) {
      const { bytesWritten } = await file.write(chunk);
      written += bytesWritten;
      if (bytesWritten < chunk.length) break;
    }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
  } finally {
    await file.close();
  }
  return written;
}

full('a write that fails is 503 and leaves nothing; every run acknowledged before survives and completes once space is freed; new starts work again', async (context) => {
  if (!privateMountsWork(context.dir)) return;
  const agent = context.agent!;
  const dirs = { dataDir: join(context.dir, 'data'), traceDir: join(context.dir, 'traces'), countDir: join(context.dir, 'step-counts') };
  await mkdir(dirs.dataDir);
  await mkdir(dirs.countDir);
  const server = (context.server = await startEmbeddedServer(dirs, {}, { launcher: tmpfsLauncher(dirs.dataDir, `size=${TMPFS_SIZE}`) }));
  const api = server.url;
  const dataDir = inNamespaceOf(server.pid, dirs.dataDir);
  assert.ok(existsSync(join(dataDir, 'flowgate.db')), 'the database is on the tmpfs');
  assert.not.ok(existsSync(join(dirs.dataDir, 'flowgate.db')), 'the tmpfs is the server’s alone');

  // Acknowledged before the fault: runs waiting for feedback, runs whose timers end during it, runs already done.
  const acknowledged: { workflowId: string; runId: string }[] = [];
  const sleepsEndAt: number[] = [];
  const starts = [
    ...Array.from({ length: BEFORE.wait }, (_, index) => ({ workflowName: 'counted_wait', workflowId: `before-wait-${index}`, input: { ms: 0 } })),
    ...Array.from({ length: BEFORE.sleep }, (_, index) => {
      const sleepMs = SLEEP_MS.min + Math.round(((SLEEP_MS.max - SLEEP_MS.min) * index) / (BEFORE.sleep - 1));
      sleepsEndAt.push(Date.now() + sleepMs);
      return { workflowName: 'counted_sleep', workflowId: `before-sleep-${index}`, input: { sleepMs, ms: 0 } };
    }),
    ...Array.from({ length: BEFORE.two }, (_, index) => ({ workflowName: 'two_counted_steps', workflowId: `before-two-${index}`, input: { ms: 0 } })),
  ];
  for (const answer of await Promise.all(starts.map((start) => post(agent, `${api}/workflow`, start)))) {
    assert.is(answer.status, 200, JSON.stringify(answer.body));
    acknowledged.push({ workflowId: answer.body.workflowId, runId: answer.body.runId });
  }

  const filler = join(dataDir, 'filler');
  const filled = await fillUp(filler);
  const faultFrom = Date.now();

  // A start needs a write: 503, named, with Retry-After, and the run does not exist.
  const refused = await post(agent, `${api}/workflow`, { workflowName: 'two_counted_steps', workflowId: 'during-fault', input: { ms: 0 } });
  assert.is(refused.status, 503, JSON.stringify(refused.body));
  assert.is(refused.body.error, 'EngineUnavailableError', JSON.stringify(refused.body));
  assert.ok(Number(refused.headers['retry-after']) >= 1, 'Retry-After');
  assert.is((await getJson(agent, `${api}/workflow/during-fault/status`)).status, 404);
  // Feedback needs a write too: 503, and the run must not act on it. Filled again first: the refused start's write
  // can leave room behind it (SQLite gives back what it had taken), where a reply's small write fit (CI of 3b3d20d).
  const secondFiller = join(dataDir, 'filler-2');
  await fillUp(secondFiller);
  const refusedFeedback = await post(agent, `${api}/workflow/feedback`, { workflowId: 'before-wait-0', payload: { sent: 'while full' } });
  assert.is(refusedFeedback.status, 503, JSON.stringify(refusedFeedback.body));

  // The fault lasts until every sleep has ended: those runs' timers fire and their next steps run against it.
  await new Promise((resolve) => setTimeout(resolve, Math.max(0, Math.max(...sleepsEndAt) + 500 - Date.now())));
  const failedCommits = server.logLines().filter((line) => String(line.msg).includes('could not commit a write')).length;
  assert.ok(failedCommits >= 2, `the fault met the runs' own writes (${failedCommits} failed commits logged)`);
  assert.ok(server.isRunning(), `the server died with its disk full:\n${server.stderr()}`);

  await unlink(filler);
  await unlink(secondFiller);
  const freedAt = Date.now();

  // Every run acknowledged before the fault exists as it was answered...
  for (const run of acknowledged) {
    const status = await getJson(agent, `${api}/workflow/${run.workflowId}/runs/${run.runId}/status`);
    assert.is(status.status, 200, `${run.workflowId}: ${JSON.stringify(status.body)}`);
  }
  // ...takes its feedback (a run a failed write left behind is restored shortly: 503 until then)...
  for (let index = 0; index < BEFORE.wait; index += 1) {
    const workflowId = `before-wait-${index}`;
    await waitFor(`feedback taken by ${workflowId}`, 15_000, async () => {
      const answer = await post(agent, `${api}/workflow/feedback`, { workflowId, payload: { sent: 'after', index } });
      if (answer.status === 200) return true;
      assert.is(answer.status, 503, `feedback to ${workflowId}: ${answer.status} ${JSON.stringify(answer.body)}`);
      return false;
    });
  }
  // ...and completes.
  await waitFor('every run to complete', 30_000, async () => (await listAllRuns(agent, api, '&status=running')).length === 0);
  for (const run of acknowledged) {
    const result = await getJson(agent, `${api}/workflow/${run.workflowId}/runs/${run.runId}/result`);
    assert.is(result.body.status, 'completed', `${run.workflowId}: ${JSON.stringify(result.body)}`);
    if (run.workflowId.startsWith('before-wait-')) assert.equal(result.body.output.feedback, { sent: 'after', index: Number(run.workflowId.split('-').at(-1)) });
  }
  const recoveredMs = Date.now() - freedAt;

  // New starts work again, and the refused one can now be made.
  for (const workflowId of ['during-fault', 'after-fault']) {
    const started = await post(agent, `${api}/workflow`, { workflowName: 'two_counted_steps', workflowId, input: { ms: 0 } });
    assert.is(started.status, 200, JSON.stringify(started.body));
    const result = await getJson(agent, `${api}/workflow/${workflowId}/result?wait=10`);
    assert.is(result.body.status, 'completed', JSON.stringify(result.body));
  }

  const runs = await listAllRuns(agent, api);
  const stored = await checkStoredRuns(agent, api, runs, dirs.countDir, () => true);
  assert.equal(stored.problems, []);
  process.stdout.write(
    `\n  tmpfs ${TMPFS_SIZE} filled with ${(filled / 1024).toFixed(0)} KiB; full for ${freedAt - faultFrom} ms, ${failedCommits} failed commits logged; all ${acknowledged.length} acknowledged runs completed ${recoveredMs} ms after space was freed; ${stored.executionsRetried} step executions repeated after failed writes, no completed step ran again\n`,
  );
  assert.ok(server.isRunning());
});

/** CPU time (user + system) the process has used so far, in ms, from /proc (clock ticks of 10 ms on Linux). */
async function cpuMs(pid: number): Promise<number> {
  const fields = (await readFile(`/proc/${pid}/stat`, 'utf8')).split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

const failedCommitsIn = (server: EmbeddedServer): number => server.logLines().filter((line) => String(line.msg).includes('could not commit a write')).length;

/** How long the test watches a server whose disk stays full. */
const WATCH_MS = 5_000;
/**
 * Failed commits a full disk may cause in WATCH_MS. The engine waits before it restores the runs a failed write left
 * behind (RESTORE_RETRY_MS in adapters/embedded/engine.ts: 1 s, doubling to 30 s), so one watch sees about three
 * rounds of restore and fail; twice that is allowed.
 */
const MAX_FAILED_COMMITS_WATCHED = 6;
/** A step taking this long is under way when the disk fills. */
const STEP_UNDER_WAY_MS = 300;
/** Its executions while the disk stays full: the first, and one per restore (about three in WATCH_MS), doubled. */
const MAX_STEP_EXECUTIONS_WATCHED = 8;

full('while the disk stays full, the runs a failed write left behind are restored on a backoff, not in a busy loop', async (context) => {
  if (!privateMountsWork(context.dir)) return;
  const agent = context.agent!;
  const root = join(context.dir, 'backoff');
  const dirs = { dataDir: join(root, 'data'), traceDir: join(root, 'traces'), countDir: join(root, 'step-counts') };
  await mkdir(dirs.dataDir, { recursive: true });
  await mkdir(dirs.countDir);
  await context.server?.stop('SIGKILL');
  const server = (context.server = await startEmbeddedServer(dirs, {}, { launcher: tmpfsLauncher(dirs.dataDir, `size=${TMPFS_SIZE}`) }));
  const sleepMs = 500;
  const startedAt = Date.now();
  for (let index = 0; index < 5; index += 1) {
    const answer = await post(agent, `${server.url}/workflow`, { workflowName: 'counted_sleep', workflowId: `sleeper-${index}`, input: { sleepMs, ms: 0 } });
    assert.is(answer.status, 200, JSON.stringify(answer.body));
  }
  // And one run whose step is under way when the disk fills: its completion cannot be written.
  const stepping = await post(agent, `${server.url}/workflow`, { workflowName: 'two_counted_steps', workflowId: 'stepping', input: { ms: STEP_UNDER_WAY_MS } });
  assert.is(stepping.status, 200, JSON.stringify(stepping.body));
  const steppingRun = { workflowId: 'stepping', runId: stepping.body.runId as string };
  await waitFor('the step under way', 5_000, async () => (await historyOf(agent, server.url, steppingRun)).some((event) => event.type === 'step_started'));
  const filler = join(inNamespaceOf(server.pid, dirs.dataDir), 'filler');
  await fillUp(filler);
  const history = await historyOf(agent, server.url, steppingRun);
  assert.not.ok(history.some((event) => event.type === 'step_completed'), `the step ended before the disk was full: ${STEP_UNDER_WAY_MS} ms is too short on this machine`);
  // Their timers fire into the full disk; the first failures are what the watch starts after.
  await waitFor('a failed commit', 10_000, async () => failedCommitsIn(server) > 0);
  await new Promise((resolve) => setTimeout(resolve, Math.max(0, startedAt + sleepMs + 500 - Date.now())));
  const failuresBefore = failedCommitsIn(server);
  const cpuBefore = await cpuMs(server.pid);
  // What serving costs meanwhile: the slowest of /health probes through the watch (a figure, not asserted).
  let slowestHealthMs = 0;
  const watchEnds = Date.now() + WATCH_MS;
  while (Date.now() < watchEnds) {
    const probeAt = Date.now();
    await getJson(agent, `${server.url}/health`);
    slowestHealthMs = Math.max(slowestHealthMs, Date.now() - probeAt);
    await new Promise((resolve) => setTimeout(resolve, Math.min(100, Math.max(0, watchEnds - Date.now()))));
  }
  const failed = failedCommitsIn(server) - failuresBefore;
  const cpu = (await cpuMs(server.pid)) - cpuBefore;
  const executions = (await stat(stepCountFile(dirs.countDir, `stepping|${steppingRun.runId}|first`))).size;
  process.stdout.write(
    `\n  disk full for ${WATCH_MS} ms with 5 runs due and a step under way: ${failed} failed commits logged, ${cpu} ms of the server's CPU, slowest /health ${slowestHealthMs} ms; the step under way executed ${executions} time${executions === 1 ? '' : 's'}\n`,
  );

  await unlink(filler);
  await waitFor('every run to complete', 30_000, async () => (await listAllRuns(agent, server.url, '&status=running')).length === 0);
  assert.ok(failed <= MAX_FAILED_COMMITS_WATCHED, `${failed} failed commits in ${WATCH_MS} ms (${cpu} ms of CPU): the runs are restored and fail again at once, over and over`);
  assert.ok(
    executions <= MAX_STEP_EXECUTIONS_WATCHED,
    `the step under way when the disk filled executed ${executions} times while it stayed full: each restore runs it again`,
  );
});

full.run();
