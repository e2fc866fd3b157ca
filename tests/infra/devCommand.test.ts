// `flowgate dev`: a Temporal dev server, a worker and the API started together on a real Temporal CLI, a run through
// the API, and Ctrl-C stopping all three (nothing left listening).
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn, type ChildProcess } from 'node:child_process';
import { connect as tcpConnect } from 'node:net';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { request } from 'undici';
import { ensureTemporalCli } from '../../scripts/infra/index.mjs';
import { eventually } from '../support/eventually.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

function portAnswers(address: string): Promise<boolean> {
  const [host, port] = address.replace(/^http:\/\//, '').split(':');
  return new Promise((resolve) => {
    const socket = tcpConnect({ host: host!, port: Number(port) });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

const dev = suite<{ child?: ChildProcess; dir?: string; stderr: string }>('flowgate dev');

dev.before(async (context) => {
  context.stderr = '';
  context.dir = await mkdtemp(join(tmpdir(), 'fg-dev-'));
  const cliPath = await ensureTemporalCli({ log: () => {} });
  const { TEMPORAL_ADDRESS: _shared, NODE_OPTIONS: _options, ...env } = process.env;
  context.child = spawn(process.execPath, ['--import', 'tsx', 'composition/cli/main.ts', 'dev', '--workflows', 'examples/workflows', '--port', '0'], {
    cwd: ROOT,
    env: { ...env, TEMPORAL_CLI: cliPath, LOG_LEVEL: 'warn', TRACE_DIR: join(context.dir, 'traces') },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  context.child.stderr!.on('data', (chunk) => (context.stderr += chunk));
});

dev.after(async (context) => {
  if (context.child && context.child.exitCode === null) {
    context.child.kill('SIGKILL');
  }
  if (context.dir) await rm(context.dir, { recursive: true, force: true });
});

dev('serves the workflows on its own Temporal; Ctrl-C stops the API, the worker and the dev server', async (context) => {
  const child = context.child!;
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const startedBy = Date.now() + 120_000;
  const { api, temporal } = await eventually(
    () => `flowgate dev to start:\n${context.stderr}`,
    () => {
      if (child.exitCode !== null) throw new Error(`flowgate dev exited before it started:\n${context.stderr}`);
      const api = /serving on (http:\/\/127\.0\.0\.1:\d+)/.exec(context.stderr)?.[1];
      const temporal = /Temporal dev server ready at (127\.0\.0\.1:\d+)/.exec(context.stderr)?.[1];
      return api !== undefined && temporal !== undefined && { api, temporal };
    },
    120_000,
  );
  // The worker publishes its catalog once it has bundled the workflows.
  const body = await eventually(
    () => `the worker to serve the catalog:\n${context.stderr}`,
    async () => {
      const response = await request(`${api}/workflow/run`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ workflowName: 'summarise', input: { text: 'one two three' }, timeout: 30 }),
      });
      const answer = (await response.body.json()) as { status?: string; output?: unknown };
      if (response.statusCode === 200) return answer;
      assert.ok([404, 503].includes(response.statusCode), `${response.statusCode} ${JSON.stringify(answer)}`);
      return undefined;
    },
    { timeoutMs: Math.max(1, startedBy - Date.now()), intervalMs: 500 },
  );
  assert.is(body.status, 'completed');
  assert.equal(body.output, { summary: 'one two three', wordCount: 3, coverage: 1 });

  child.kill('SIGINT');
  assert.is(await exited, 0, context.stderr);
  assert.match(context.stderr, /SIGINT received; stopping the API, the worker and the Temporal dev server/);
  assert.not.ok(await portAnswers(api), 'the API stopped');
  assert.not.ok(await portAnswers(temporal), 'the Temporal dev server stopped');
});

dev.run();
