import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTemporalDevServer, type TemporalDevServer } from '../../scripts/infra/index.mjs';
import { startTestApi, type TestApi } from '../support/engines.js';
import { call } from '../support/http.js';
import { eventually } from '../support/eventually.js';

/**
 * Temporal stopped and restarted under a running API server. This file runs its own dev server (on disk, so the
 * catalog registry survives the restart) and points the harness at it.
 */
const outage = suite<{ server: TemporalDevServer; api: TestApi; dir: string; sharedAddress?: string }>('Temporal outage under a running API');

outage.before(async (context) => {
  context.dir = await mkdtemp(join(tmpdir(), 'fg-outage-'));
  context.server = await startTemporalDevServer({ dbFilename: join(context.dir, 'temporal.db') });
  context.sharedAddress = process.env.TEMPORAL_ADDRESS;
  process.env.TEMPORAL_ADDRESS = context.server.address;
  context.api = await startTestApi();
});

outage.after(async (context) => {
  await context.api?.close().catch(() => {});
  await context.server?.stop();
  if (context.sharedAddress) process.env.TEMPORAL_ADDRESS = context.sharedAddress;
  await rm(context.dir, { recursive: true, force: true });
});

async function readyStatus(api: TestApi): Promise<number> {
  return (await call(api, 'GET', '/ready')).status;
}

outage('/ready follows the outage, requests fail clearly, and everything works again after the restart', async ({ server, api }) => {
  assert.is(await readyStatus(api), 200);
  const before = await call(api, 'POST', '/workflow/run', { json: { workflowName: 'echo', input: { message: 'before' } } });
  assert.is(before.body.status, 'completed');

  await server.stop();
  const ready = await call(api, 'GET', '/ready');
  assert.is(ready.status, 503);
  assert.is(ready.body.status, 'unavailable');
  assert.is(ready.body.engine, 'temporal');
  const status = await call(api, 'GET', `/workflow/${before.body.workflowId}/status`);
  assert.ok(status.status >= 500, `a clear 5xx while Temporal is down, got ${status.status}`);
  assert.ok(['EngineUnavailableError', 'InternalError'].includes(status.body.error));
  assert.not.match(status.body.message, /grpc|ECONNREFUSED|14 UNAVAILABLE|No connection established/i, 'no engine internals leak');

  await server.start();
  await eventually('/ready to recover', async () => (await readyStatus(api)) === 200, { timeoutMs: 60_000, intervalMs: 250 });
  // Until the workers poll again the catalog is unavailable: 503 with Retry-After, which a client honours.
  const after = await eventually(
    'the catalog to come back',
    async () => {
      const answer = await call(api, 'POST', '/workflow/run', { json: { workflowName: 'echo', input: { message: 'after' }, timeout: 60 } });
      if (answer.status !== 503) return answer;
      assert.is(answer.body.error, 'CatalogNotAvailableError');
      return undefined;
    },
    { timeoutMs: 60_000, intervalMs: 1000 },
  );
  assert.is(after.status, 200);
  assert.is(after.body.status, 'completed');
  const old = await call(api, 'GET', `/workflow/${before.body.workflowId}/result`);
  assert.equal(old.body.output, { message: 'before' });
});

outage.run();
