import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { CLI, ROOT, runCommand, startServerProcess, type ServerProcess } from './process.js';
import { eventually } from '../support/eventually.js';

const main = suite<{ server?: ServerProcess; traceDir?: string }>('npm start (flowgate serve --workflows examples/workflows)');

main.before(async (context) => {
  context.traceDir = await mkdtemp(join(tmpdir(), 'fg-main-'));
  context.server = await startServerProcess({ TRACE_DIR: context.traceDir, SHUTDOWN_GRACE_MS: '10000' });
});

main.after(async (context) => {
  await context.server?.stop('SIGKILL');
  if (context.traceDir) await rm(context.traceDir, { recursive: true, force: true });
});

main('serves the example workflows and warns that auth is off', async ({ server }) => {
  const response = await request(`${server!.url}/workflow/list`);
  const { workflows } = (await response.body.json()) as { workflows: { name: string }[] };
  assert.equal(
    workflows.map((workflow) => workflow.name).sort(),
    ['approval', 'countdown', 'digest', 'nap', 'summarise', 'unreliable'],
  );
  assert.match(server!.stdout(), /neither API_AUTH_TOKEN nor API_KEYS_FILE is set/);
});

main('the README walk-through works as written', async ({ server }) => {
  const readme = await readFile(join(ROOT, 'README.md'), 'utf8');
  const block = readme.match(/```sh walkthrough\n([\s\S]*?)```/)?.[1];
  assert.ok(block, 'README has a walkthrough block');
  const { code, stdout, stderr } = await runCommand('bash', ['-e', '-c', block], { FG: server!.url });
  assert.is(code, 0, `walk-through failed:\n${stdout}\n${stderr}`);
  assert.match(stdout, /"status":"completed"/);
  assert.match(stdout, /"status":"failed"/);
  assert.match(stdout, /"terminated":true/);
  assert.match(stdout, /event: workflow/);
  assert.match(stdout, /"scheduleId":"walk-hourly"/);
  assert.match(stdout, /\{"scheduleId":"walk-hourly","fires":3\}/);
});

main('the README CLI walk-through works as written', async ({ server }) => {
  const readme = await readFile(join(ROOT, 'README.md'), 'utf8');
  const block = readme.match(/```sh cli-walkthrough\n([\s\S]*?)```/)?.[1];
  assert.ok(block, 'README has a cli-walkthrough block');
  const { code, stdout, stderr } = await runCommand('bash', ['-e', '-c', block], { FG: server!.url, FLOWGATE_URL: '', FLOWGATE_TOKEN: '' });
  assert.is(code, 0, `CLI walk-through failed:\n${stdout}\n${stderr}`);
  assert.match(stdout, /^WORKFLOW +DESCRIPTION\n/);
  assert.match(stdout, /\ncompleted  cli-summary  run [0-9a-f-]{36}\n\{\n  "summary": /);
  assert.match(stdout, /\nstatus: +completed\n/);
  assert.match(stdout, /\nsplit_words +\|[ █]+\| /);
  assert.match(stdout, /\nreset to after split_words: cli-summary new run /);
  assert.match(stdout, /\n\{"event":"done","data":\{"status":"completed"\}\}\n/);
  assert.match(stdout, /\ncancellation requested: cli-nap run /);
  assert.match(stdout, /\nterminated: cli-nap-2 run /);
  assert.match(stdout, /\nfailed  \S+  run \S+\nerror: UpstreamUnavailableError: .*\nexit status 1\n/);
  assert.match(stdout, /\nWORKFLOW ID +RUN ID +WORKFLOW +STATUS +STARTED +DURATION\ncli-nap-2 +/);
});

main('an access-log line per request, without the Authorization header', async ({ server }) => {
  await request(`${server!.url}/health`, { headers: { authorization: 'Bearer never-logged-123', 'x-request-id': 'trace-me-1' } });
  // The line is written once the answer is sent: it reaches the pipe a moment after the answer.
  const line = await eventually('the access log line', () => server!.stdout().split('\n').find((candidate) => candidate.includes('trace-me-1')), { intervalMs: 20 });
  const entry = JSON.parse(line);
  assert.is(entry.method, 'GET');
  assert.is(entry.path, '/health');
  assert.is(entry.status, 200);
  assert.type(entry.durationMs, 'number');
  assert.is(entry.requestId, 'trace-me-1');
  assert.not.match(server!.stdout(), /never-logged-123/);
});

main.run();

const shutdown = suite('graceful shutdown');

shutdown('SIGTERM lets in-flight POST /workflow/run calls finish, then exits 0', async () => {
  const traceDir = await mkdtemp(join(tmpdir(), 'fg-term-'));
  const server = await startServerProcess({ TRACE_DIR: traceDir, SHUTDOWN_GRACE_MS: '10000' });
  try {
    const inFlight = Array.from({ length: 20 }, (_, index) =>
      request(`${server.url}/workflow/run`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ workflowName: 'nap', input: { ms: 400 }, workflowId: `term-${index}` }),
      }).then(async (response) => ({ status: response.statusCode, body: (await response.body.json()) as { status: string } })),
    );
    // In flight means taken by the server: every run started (a fixed pause lost requests still in the listen
    // backlog on a loaded machine, and the closing listener reset them).
    for (let index = 0; index < 20; index += 1) {
      await eventually(
        `run term-${index} to start`,
        async () => (await request(`${server.url}/workflow/term-${index}/status`).then(async (response) => (await response.body.dump(), response.statusCode))) === 200,
        { intervalMs: 20 },
      );
    }
    const exitCode = server.stop('SIGTERM');
    const answers = await Promise.all(inFlight);
    assert.equal(answers.map((answer) => answer.status), Array(20).fill(200));
    assert.equal(answers.map((answer) => answer.body.status), Array(20).fill('completed'));
    assert.is(await exitCode, 0);
    // After shutdown nothing listens any more.
    await request(`${server.url}/health`).then(() => assert.unreachable('still listening'), () => {});
  } finally {
    await server.stop('SIGKILL');
    await rm(traceDir, { recursive: true, force: true });
  }
});

shutdown('invalid configuration: exit 2 and one line per problem, no stack trace', async () => {
  const { code, stderr } = await runCommand(process.execPath, [...CLI, 'serve'], {
    PORT: 'eighty',
    DEPRECATED_ENDPOINTS: 'sometimes',
  });
  assert.is(code, 2);
  assert.match(stderr, /PORT:/);
  assert.match(stderr, /DEPRECATED_ENDPOINTS:/);
  assert.not.match(stderr, /\n\s+at /);
});

shutdown('production without a token refuses to start', async () => {
  // Unset, not empty: an empty API_AUTH_TOKEN is a configuration mistake of its own (the test above).
  const { code, stderr } = await runCommand('env', ['-u', 'API_AUTH_TOKEN', process.execPath, ...CLI, 'serve'], { NODE_ENV: 'production' });
  assert.is(code, 2);
  assert.match(stderr, /API_AUTH_TOKEN: must be set when NODE_ENV=production/);
});

shutdown('an empty API_AUTH_TOKEN refuses to start with one line, never silently without authentication', async () => {
  const { code, stderr } = await runCommand(process.execPath, [...CLI, 'serve'], { API_AUTH_TOKEN: ' ', PORT: '0' });
  assert.is(code, 2);
  assert.equal(stderr.trim().split('\n'), [
    'flowgate serve: invalid configuration: API_AUTH_TOKEN: is empty; set a token, or leave the variable unset to run without authentication (local development only)',
  ]);
});

shutdown.run();
