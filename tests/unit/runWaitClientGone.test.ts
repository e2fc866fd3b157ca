import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { request } from 'undici';
import { startFlowgateServer } from '../../composition/server.js';
import type { LogFields, Logger } from '../../ports/logger.js';
import { eventually } from '../support/eventually.js';

/*
 * A POST /workflow/run whose client goes away: the wait ends with it (nothing of the request is held until the run
 * closes or the timeout passes), the run goes on.
 */
const EXAMPLES = fileURLToPath(new URL('../../examples/workflows/', import.meta.url));
const quiet: Logger = { info: (_m: string, _f?: LogFields) => {}, warn: () => {}, error: () => {} };

for (const keyed of [false, true]) {
  test(`a run-and-wait${keyed ? ' with an Idempotency-Key' : ''} whose client leaves stops waiting at once; the run keeps going`, async () => {
    const traceDir = await mkdtemp(join(tmpdir(), 'fg-client-gone-'));
    const server = await startFlowgateServer({ env: { PORT: '0', TRACE_DIR: traceDir, DATA_DIR: join(traceDir, 'data'), WORKFLOWS_DIR: EXAMPLES }, logger: quiet });
    const waits: Promise<unknown>[] = [];
    const original = server.api.runAndWait.bind(server.api);
    server.api.runAndWait = (...args) => {
      const wait = original(...args);
      waits.push(wait.catch((error: unknown) => error));
      return wait;
    };
    try {
      const client = new AbortController();
      const sent = request(`${server.url}/workflow/run`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(keyed ? { 'idempotency-key': 'client-gone-1' } : {}) },
        body: JSON.stringify({ workflowName: 'nap', workflowId: 'client-gone', input: { ms: 60_000 }, timeout: 3600 }),
        signal: client.signal,
      }).catch(() => undefined);
      await eventually('the run to start', async () => {
        const status = await request(`${server.url}/workflow/client-gone/status`);
        return status.statusCode === 200 ? ((await status.body.json()) as { status: string }).status === 'running' : (await status.body.dump(), false);
      });
      const leftAt = Date.now();
      client.abort();
      await sent;
      const ended = (await Promise.race([waits[0], new Promise((resolve) => setTimeout(() => resolve('still waiting'), 2_000))])) as Error | string;
      assert.ok(ended instanceof Error, `the wait after the client left: ${String(ended)}`);
      assert.is(ended.name, 'WorkflowExecutionTimedOutError');
      assert.match(ended.message, /client went away/);
      assert.ok(Date.now() - leftAt < 2_000);
      const status = await request(`${server.url}/workflow/client-gone/status`);
      assert.is(((await status.body.json()) as { status: string }).status, 'running', 'the run goes on');
    } finally {
      await server.close();
      await rm(traceDir, { recursive: true, force: true });
    }
  });
}

test.run();
