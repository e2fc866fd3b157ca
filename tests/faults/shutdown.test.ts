// Fault: SIGTERM while 100 POST /workflow/run calls are in flight, against the API as `npm start` runs it (a child
// process on the embedded engine). Half the runs end inside the grace period, half could never: every call must still
// get its answer before the process exits, within SHUTDOWN_GRACE_MS, and the process must exit 0.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, request } from 'undici';
import { startServerProcess, type ServerProcess } from '../integration/process.js';
import { call } from '../support/http.js';
import { eventually } from '../support/eventually.js';

const GRACE_MS = 3_000;
const CALLS = 100;
/** Ends well inside the grace period, and long after the last of the 100 runs has started. */
const SHORT_NAP_MS = 1_500;
/** Could never end inside it. */
const LONG_NAP_MS = 600_000;
/**
 * Scheduling noise on a loaded 2-core machine between the child writing an answer and this process reading it. The
 * server-side bound is exact: at the end of the grace period the server closes every connection, so an answer not
 * written by then shows up below as a lost call.
 */
const SLACK_MS = 1_500;

interface Answer {
  index: number;
  status?: number;
  body?: any;
  headers?: Record<string, unknown>;
  error?: string;
  at: number;
}

const shutdown = suite<{ server?: ServerProcess; traceDir?: string; agent?: Agent }>('SIGTERM during 100 in-flight POST /workflow/run');

shutdown.before(async (context) => {
  context.traceDir = await mkdtemp(join(tmpdir(), 'fg-fault-term-'));
  context.server = await startServerProcess({ TRACE_DIR: context.traceDir, SHUTDOWN_GRACE_MS: String(GRACE_MS) });
  // One connection per call, as 100 independent clients would have.
  context.agent = new Agent({ connections: CALLS + 10 });
});

shutdown.after(async (context) => {
  await context.server?.stop('SIGKILL');
  await context.agent?.close();
  if (context.traceDir) await rm(context.traceDir, { recursive: true, force: true });
});

shutdown('every call is answered before the process exits and within the grace period; exit code 0', async (context) => {
  const server = context.server!;
  const exitedAt = new Promise<number>((resolve) => server.child.once('exit', () => resolve(Date.now())));
  const calls: Promise<Answer>[] = Array.from({ length: CALLS }, (_, index) => {
    const long = index % 2 === 1;
    return request(`${server.url}/workflow/run`, {
      method: 'POST',
      dispatcher: context.agent!,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ workflowName: 'nap', workflowId: `term-${index}`, input: { ms: long ? LONG_NAP_MS : SHORT_NAP_MS }, timeout: 3_600 }),
    }).then(
      async (response) => ({ index, status: response.statusCode, headers: response.headers, body: await response.body.json(), at: Date.now() }),
      (error: unknown) => ({ index, error: String(error), at: Date.now() }),
    );
  });

  // SIGTERM once every run has started, so each call is really in flight (waiting on its run). Counted whatever
  // their status: on a loaded machine a short nap may end before the last run starts (then the check below fails).
  let started = 0;
  await eventually(
    () => `all ${CALLS} runs to start (${started} did)`,
    async () => {
      started = (await call({ baseUrl: server.url }, 'GET', '/workflow/runs?workflowName=nap&limit=1000')).body.runs.length;
      return started === CALLS;
    },
    { intervalMs: 50 },
  );
  const signalledAt = Date.now();
  const exitCode = server.stop('SIGTERM');
  const answers = await Promise.all(calls);
  const exited = await exitedAt;

  assert.is(await exitCode, 0, `exit code; stderr:\n${server.stderr()}`);
  const lost = answers.filter((answer) => answer.error !== undefined);
  assert.equal(lost.map((answer) => `${answer.index}: ${answer.error}`), [], 'every call got an answer');
  const early = answers.filter((answer) => answer.at < signalledAt).map((answer) => answer.index);
  assert.equal(early, [], 'no call was answered before SIGTERM (all 100 were in flight)');
  for (const answer of answers) {
    assert.ok(answer.at <= exited, `call ${answer.index} answered before the process exited`);
    assert.ok(answer.at - signalledAt <= GRACE_MS + SLACK_MS, `call ${answer.index} answered ${answer.at - signalledAt} ms after SIGTERM`);
  }
  assert.ok(exited - signalledAt <= GRACE_MS + 2 * SLACK_MS, `exited ${exited - signalledAt} ms after SIGTERM`);

  // The runs that could end did: their callers got the real result.
  for (const answer of answers.filter((candidate) => candidate.index % 2 === 0)) {
    assert.is(answer.status, 200, `short run ${answer.index}: ${JSON.stringify(answer.body)}`);
    assert.is(answer.body.status, 'completed');
    assert.equal(answer.body.output, { sleptMs: SHORT_NAP_MS });
  }
  // The others were told the wait ended without the run (docs/api.md's timeout answer: 408 with the workflowId, the
  // run not cancelled), naming the shutdown as the reason; never a dropped connection or a 500.
  for (const answer of answers.filter((candidate) => candidate.index % 2 === 1)) {
    assert.is(answer.status, 408, `long run ${answer.index}: ${answer.status} ${JSON.stringify(answer.body)}`);
    assert.is(answer.body.error, 'WorkflowExecutionTimedOutError');
    assert.is(answer.body.workflowId, `term-${answer.index}`);
    assert.match(answer.body.message, /shutting down/);
    assert.is(answer.headers!['connection'], 'close');
  }
  // A planned shutdown is not a fault: nothing logged at error level.
  const errors = server.stdout().split('\n').filter((line) => line.includes('"level":"error"'));
  assert.equal(errors, []);
});

shutdown.run();
