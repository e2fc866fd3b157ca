import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { HookRuntime, loadHookFiles } from '../../../adapters/hooks/index.js';
import { emit } from '../../../core/definition/index.js';
import { reportTo } from '../../../examples/hooks/metering.js';

/* The metering example of docs/hooks.md, loaded as a hook file and driven through the worker's hook runtime. */
const METERING = fileURLToPath(new URL('../../../examples/hooks/metering.ts', import.meta.url));
const details = { attempt: 1, firstExecutionRunId: 'r1', runId: 'r1', runStartTime: 2, startTime: 1, workflowId: 'w1', workflowType: 'digest' };
const attempt = (name: string, attemptNo: number) => ({
  workflowDetails: details,
  activityInfo: { activityId: name, activityType: `digest#${name}`, name, attempt: attemptNo },
  outputActivityKind: 'step' as const,
});

test('one line per run: totals of every step attempt, per step and for the run, failed attempts included', async () => {
  const lines: string[] = [];
  reportTo((line) => lines.push(line));
  const runtime = new HookRuntime(await loadHookFiles({ hookFiles: [METERING] }), { logger: { info: () => {}, warn: () => {}, error: () => {} } });
  try {
    runtime.runStarted(details);
    await runtime.activityAttempt(attempt('ask_llm', 1), async () => {
      emit('cost:llm:request', { cost: 0.5, inputTokens: 100, outputTokens: 20 });
      throw new Error('rate limited');
    }).catch(() => {});
    await runtime.activityAttempt(attempt('ask_llm', 2), async () => {
      emit('cost:llm:request', { cost: 0.25, tokens: 60 });
    });
    await runtime.activityAttempt(attempt('fetch_page', 1), async () => {
      emit('cost:http:request', { cost: 0.01 });
    });
    runtime.runEnded(details, { status: 'completed' });
    await runtime.bus.settled();
  } finally {
    await runtime.close();
  }
  assert.is(lines.length, 1);
  assert.equal(JSON.parse(lines[0]!), {
    metering: 'digest',
    workflowId: 'w1',
    runId: 'r1',
    status: 'ended',
    total: { totalCost: 0.76, httpCalls: 0, tokens: 180 },
    steps: {
      ask_llm: { totalCost: 0.75, httpCalls: 0, tokens: 180, attempts: 2 },
      fetch_page: { totalCost: 0.01, httpCalls: 0, tokens: 0, attempts: 1 },
    },
  });
});

test.run();
