import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { request } from 'undici';
import { runWaitCutOffMs, startFlowgateServer } from '../../composition/server.js';
import type { FlowgateApi } from '../../core/api/flowgateApi.js';
import type { LogFields, Logger } from '../../ports/logger.js';
import { eventually } from '../support/eventually.js';

const EXAMPLES = fileURLToPath(new URL('../../examples/workflows/', import.meta.url));
const quiet: Logger = { info: (_m: string, _f?: LogFields) => {}, warn: () => {}, error: () => {} };

/**
 * Counts the calls of `method` the server's API receives: close() must come once the requests are being handled,
 * which a fixed pause only guesses (under load a request can still be on its way).
 */
function arrivals(api: FlowgateApi, method: 'runAndWait' | 'getResult'): () => number {
  let count = 0;
  const original = api[method].bind(api) as (...args: unknown[]) => unknown;
  Object.assign(api, {
    [method]: (...args: unknown[]) => {
      count += 1;
      return original(...args);
    },
  });
  return () => count;
}

test('run waits are cut a second before the grace period ends, or at four fifths of a short one', () => {
  assert.is(runWaitCutOffMs(10_000), 9_000);
  assert.is(runWaitCutOffMs(2_000), 1_600);
  assert.is(runWaitCutOffMs(0), 0);
});

test('close(): a POST /workflow/run still waiting at the cut-off gets 408 naming the shutdown; a short one gets its result', async () => {
  const traceDir = await mkdtemp(join(tmpdir(), 'fg-cutoff-'));
  // A 3 s grace cuts the waits at 2 s: a second between the cut and the grace's end, room for a loaded machine.
  const server = await startFlowgateServer({ env: { PORT: '0', TRACE_DIR: traceDir, DATA_DIR: join(traceDir, 'data'), SHUTDOWN_GRACE_MS: '3000', WORKFLOWS_DIR: EXAMPLES }, logger: quiet });
  const runWait = async (workflowId: string, ms: number) => {
    const response = await request(`${server.url}/workflow/run`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ workflowName: 'nap', workflowId, input: { ms } }),
    });
    return { status: response.statusCode, body: (await response.body.json()) as Record<string, unknown>, at: Date.now() };
  };
  const runWaits = arrivals(server.api, 'runAndWait');
  try {
    const long = runWait('cut-long', 60_000);
    const short = runWait('cut-short', 150);
    await eventually('both run-and-waits to reach the server', () => runWaits() === 2, { intervalMs: 5 });
    const closing = Date.now();
    const closed = server.close();
    const [cut, done] = await Promise.all([long, short]);
    assert.is(cut.status, 408);
    assert.is(cut.body.error, 'WorkflowExecutionTimedOutError');
    assert.is(cut.body.workflowId, 'cut-long');
    assert.match(String(cut.body.message), /shutting down/);
    assert.ok(cut.at - closing >= 1750 && cut.at - closing < 3000, `cut ${cut.at - closing} ms after close()`);
    assert.is(done.status, 200);
    assert.is(done.body.status, 'completed');
    await closed;
  } finally {
    await server.close();
    await rm(traceDir, { recursive: true, force: true });
  }
});

test('close(): a result long-poll still waiting at the cut-off says the shutdown cut it, not that its wait ran out', async () => {
  const traceDir = await mkdtemp(join(tmpdir(), 'fg-cutoff-'));
  const server = await startFlowgateServer({ env: { PORT: '0', TRACE_DIR: traceDir, DATA_DIR: join(traceDir, 'data'), SHUTDOWN_GRACE_MS: '1000', WORKFLOWS_DIR: EXAMPLES }, logger: quiet });
  const polls = arrivals(server.api, 'getResult');
  try {
    const started = await request(`${server.url}/workflow`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ workflowName: 'nap', workflowId: 'cut-poll', input: { ms: 60_000 } }),
    });
    assert.is(started.statusCode, 200);
    await started.body.dump();
    const poll = request(`${server.url}/workflow/cut-poll/result?wait=3000`).then(async (response) => ({
      status: response.statusCode,
      retryAfter: response.headers['retry-after'],
      body: (await response.body.json()) as Record<string, unknown>,
    }));
    await eventually('the long-poll to reach the server', () => polls() === 1, { intervalMs: 5 });
    const closed = server.close();
    const cut = await poll;
    assert.is(cut.status, 424, 'the status stays what a wait that ran out gives');
    assert.is(cut.body.error, 'WorkflowNotCompletedError');
    assert.is(cut.retryAfter, '1');
    assert.match(String(cut.body.message), /shutting down/);
    assert.not.match(String(cut.body.message), /within 3000 s/);
    await closed;
  } finally {
    await server.close();
    await rm(traceDir, { recursive: true, force: true });
  }
});

test.run();
