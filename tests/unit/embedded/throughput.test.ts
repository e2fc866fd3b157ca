import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { z } from 'zod';
import { EmbeddedEngine } from '../../../adapters/embedded/index.js';
import { randomIds, systemClock } from '../../../adapters/system/index.js';
import { step, workflow } from '../../../core/definition/index.js';
import { RecordingWebhookSender } from './support.js';
import { CapturingLogger } from '../../support/logLines.js';

const increment = step({ name: 'increment', fn: async (n: number) => n + 1 });
const trivial = workflow({
  name: 'trivial',
  description: 'One step',
  inputSchema: z.object({ n: z.number() }),
  outputSchema: z.object({ n: z.number() }),
  fn: async ({ n }) => ({ n: await increment(n) }),
});

test('2000 trivial runs complete on the real clock', async () => {
  const engine = new EmbeddedEngine({ clock: systemClock, ids: randomIds, logger: new CapturingLogger(), webhookSender: new RecordingWebhookSender() });
  engine.registerWorker({ catalog: 'main', workflows: [trivial] });
  const runs = await Promise.all(
    Array.from({ length: 2000 }, (_v, i) => engine.start({ workflowName: 'trivial', catalog: 'main', workflowId: `t-${i}`, input: { n: i } })),
  );
  const outcomes = await Promise.all(runs.map((run) => engine.awaitOutcome(run, { timeoutMs: 60_000 })));
  assert.ok(outcomes.every((outcome, i) => outcome?.run.status === 'completed' && (outcome.output as { n: number }).n === i + 1));
  const { runs: listed } = await engine.listRuns({ limit: 1000, status: 'completed' });
  assert.is(listed.length, 1000);
  engine.close();
});

test.run();
