import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { z } from 'zod';
import { workflow } from '../../../core/definition/index.js';
import { validationError } from '../../support/rejection.js';
import { flush, harness } from './support.js';

const quick = workflow({ name: 'quick', description: 'Returns', inputSchema: z.unknown(), outputSchema: z.unknown(), fn: async () => 'ok' });
const slow = workflow({
  name: 'slow',
  description: 'Sleeps',
  inputSchema: z.unknown(),
  outputSchema: z.unknown(),
  fn: async (_i, ctx) => ctx.sleep(60_000),
});

test('runs are listed newest first (start time, then insertion) and filtered', async () => {
  const h = harness([quick, slow]);
  h.engine.registerWorker({ catalog: 'side', workflows: [quick] });
  await h.run(quick, {}, 'q1');
  await h.run(quick, {}, 'q2');
  await h.clock.advance(10);
  await h.run(slow, {}, 's1');
  await h.engine.start({ workflowName: 'quick', catalog: 'side', workflowId: 'side-1', input: {} });
  await flush();
  const all = await h.engine.listRuns({ limit: 100 });
  assert.equal(all.runs.map((r) => r.workflowId), ['side-1', 's1', 'q2', 'q1']);
  assert.is(all.nextPageToken, null);
  assert.equal((await h.engine.listRuns({ limit: 100, workflowName: 'quick' })).runs.map((r) => r.workflowId), ['side-1', 'q2', 'q1']);
  assert.equal((await h.engine.listRuns({ limit: 100, catalog: 'side' })).runs.map((r) => r.workflowId), ['side-1']);
  assert.equal((await h.engine.listRuns({ limit: 100, status: 'running' })).runs.map((r) => r.workflowId), ['s1']);
  assert.equal((await h.engine.listRuns({ limit: 100, status: 'completed', catalog: 'main' })).runs.map((r) => r.workflowId), ['q2', 'q1']);
  h.close();
});

test('pages continue where the last ended, even when newer runs start in between', async () => {
  const h = harness([quick]);
  for (let i = 1; i <= 5; i += 1) await h.run(quick, {}, `r${i}`);
  const first = await h.engine.listRuns({ limit: 2 });
  assert.equal(first.runs.map((r) => r.workflowId), ['r5', 'r4']);
  await h.run(quick, {}, 'r6');
  const second = await h.engine.listRuns({ limit: 2, pageToken: first.nextPageToken! });
  assert.equal(second.runs.map((r) => r.workflowId), ['r3', 'r2']);
  const third = await h.engine.listRuns({ limit: 2, pageToken: second.nextPageToken! });
  assert.equal(third.runs.map((r) => r.workflowId), ['r1']);
  assert.is(third.nextPageToken, null);
  h.close();
});

test('a token used with another filter, or forged, or from another engine is refused', async () => {
  const h = harness([quick]);
  for (let i = 1; i <= 3; i += 1) await h.run(quick, {}, `r${i}`);
  const token = (await h.engine.listRuns({ limit: 1 })).nextPageToken!;
  const stale = await validationError(h.engine.listRuns({ limit: 1, workflowName: 'quick', pageToken: token }));
  assert.is(stale.message, 'pageToken is invalid or stale');
  assert.equal(stale.issues?.[0]?.code, 'invalid_page_token');
  await validationError(h.engine.listRuns({ limit: 1, status: 'running', pageToken: token }));
  await validationError(h.engine.listRuns({ limit: 1, pageToken: `${token.slice(0, -2)}AA` }));
  await validationError(h.engine.listRuns({ limit: 1, pageToken: 'not-a-token' }));
  const other = harness([quick]);
  await validationError(other.engine.listRuns({ limit: 1, pageToken: token }));
  await validationError(h.engine.listRuns({ limit: 0 }));
  await validationError(h.engine.listRuns({ limit: 1001 }));
  h.close();
  other.close();
});

test.run();
