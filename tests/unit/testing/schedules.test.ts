// flowgate/testing with a schedule (docs/testing.md): the virtual clock fires it, so a nightly schedule is tested in
// milliseconds.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { z } from 'zod';
import { workflow } from '../../../core/definition/index.js';
import { createTestEnvironment } from '../../../composition/testing/index.js';

const nightlySync = workflow({
  name: 'nightly_sync',
  inputSchema: z.object({ source: z.string() }),
  outputSchema: z.object({ synced: z.string() }),
  fn: async ({ source }) => ({ synced: source }),
});

test('a schedule fires on the virtual clock: three nights, three runs named by their fire times', async () => {
  const env = await createTestEnvironment({ workflows: [nightlySync], timeSkipping: false, startTime: new Date('2030-03-01T12:00:00Z') });
  try {
    await env.api.createSchedule({ scheduleId: 'nightly', workflowName: 'nightly_sync', input: { source: 'crm' }, spec: { cron: '30 2 * * *', timezone: 'Europe/Berlin' } });
    await env.clock.advance(3 * 24 * 3600 * 1000);
    const runs = await env.api.listRuns({ scheduleId: 'nightly', limit: 10 });
    assert.equal(runs.runs.map((run) => run.workflowId).sort(), ['nightly-2030-03-02T01:30:00Z', 'nightly-2030-03-03T01:30:00Z', 'nightly-2030-03-04T01:30:00Z']);
    assert.ok(runs.runs.every((run) => run.scheduleId === 'nightly' && run.status === 'completed'));
    const schedule = await env.api.getSchedule('nightly');
    assert.is(schedule.actionCount, 3);
    assert.is(schedule.nextFireTimes[0], '2030-03-05T01:30:00.000Z');
  } finally {
    await env.close();
  }
});

test.run();
