import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Connection } from '@temporalio/client';
import { startTemporalDevServer, type TemporalDevServer } from '../../scripts/infra/index.mjs';
import { startTestApi, type TestApi } from '../support/engines.js';
import { call } from '../support/http.js';

/**
 * Temporal's rate limits, met for real: this file runs its own dev server that allows 2 visibility calls a second
 * (run lists), so a burst of them is turned away with RESOURCE_EXHAUSTED, as a busy cluster does (a bulk operation's
 * pages beside other traffic met "System Persistence Max QPS Reached" on the shared dev server).
 */
const VISIBILITY_RPS = 2;
const throttled = suite<{ server: TemporalDevServer; api: TestApi; sharedAddress?: string }>('Temporal rate limits under the API');

throttled.before(async (context) => {
  context.server = await startTemporalDevServer({
    dynamicConfig: { 'frontend.namespaceRPS.visibility': VISIBILITY_RPS, 'frontend.namespaceBurstRatio.visibility': 1 },
  });
  context.sharedAddress = process.env.TEMPORAL_ADDRESS;
  process.env.TEMPORAL_ADDRESS = context.server.address;
  context.api = await startTestApi();
});

throttled.after(async (context) => {
  await context.api?.close().catch(() => {});
  await context.server?.stop();
  if (context.sharedAddress) process.env.TEMPORAL_ADDRESS = context.sharedAddress;
});

throttled('run lists beyond the rate limit are slowed, not refused: every one answers 200', async ({ server, api }) => {
  // The premise: the same burst straight to Temporal is turned away.
  const connection = await Connection.connect({ address: server.address, interceptors: [] });
  try {
    const codes = await Promise.all(
      Array.from({ length: 6 }, () =>
        connection.workflowService.listWorkflowExecutions({ namespace: 'default', pageSize: 5, query: '' }).then(
          () => 'ok',
          (error: { code?: number }) => String(error.code),
        ),
      ),
    );
    assert.ok(codes.includes('8'), `RESOURCE_EXHAUSTED expected among ${codes.join(', ')}`);
  } finally {
    await connection.close();
  }

  // One after another, as a bulk operation reads its pages: each waits for the limit to let it through.
  const startedAt = Date.now();
  const answers = [];
  for (let page = 0; page < 6; page += 1) answers.push(await call(api, 'GET', '/workflow/runs?catalog=main&limit=5'));
  assert.equal(
    answers.map((answer) => answer.status),
    [200, 200, 200, 200, 200, 200],
    answers.map((answer) => answer.text).join('\n'),
  );
  // Six at two a second: the API waited for the limit rather than answering 503 (before, the first refusal was a 503).
  assert.ok(Date.now() - startedAt >= 1000, `answered in ${Date.now() - startedAt} ms`);

  const bulk = await call(api, 'POST', '/workflow/runs/terminate', { json: { catalog: 'main', dryRun: true } });
  assert.is(bulk.status, 200, bulk.text);
  assert.is(bulk.body.dryRun, true);
});

throttled.run();
