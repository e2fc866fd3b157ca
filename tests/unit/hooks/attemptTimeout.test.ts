import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { z } from 'zod';
import { composeEmbedded } from '../../../composition/embed/createFlowgate.js';
import { HookRuntime } from '../../../adapters/hooks/index.js';
import { defineHooks, emit, step, workflow } from '../../../core/definition/index.js';
import type { Aggregations } from '../../../core/definition/hooks.js';

/*
 * A step attempt that outlives its timeout on the embedded engine (docs/hooks.md): the hooks hear of its failure at the
 * timeout, as the run does, not a success when the function returns later; what it spends afterwards still reaches
 * the observer's aggregations (the metrics count it), once.
 */
test('an attempt past its timeout fires onActivityError at the timeout, never onActivityEnd; its late spending is reported', async () => {
  const startedAt = Date.now();
  const seen: string[] = [];
  let returnedAt = 0;
  const hooks = defineHooks((on) => {
    on.onActivityEnd((event) => void seen.push(`end attempt ${event.activityInfo.attempt}`));
    on.onActivityError((event) => void seen.push(`error ${event.error.name} at ${Date.now() - startedAt < 250 ? 'the timeout' : 'the return'}, cost ${event.aggregations.totalCost}`));
  });
  const slow = step({
    name: 'slow',
    timeoutMs: 100,
    retry: { maximumAttempts: 1 },
    fn: async () => {
      emit('cost:llm:request', { cost: 1, tokens: 5 });
      await new Promise((resolve) => setTimeout(resolve, 400));
      emit('cost:llm:request', { cost: 2, tokens: 7 });
      returnedAt = Date.now();
      return 1;
    },
  });
  const outlives = workflow({ name: 'outlives', inputSchema: z.object({}), outputSchema: z.unknown(), fn: async () => slow(undefined) });
  const runtime = new HookRuntime([hooks], { logger: { info: () => {}, warn: () => {}, error: () => {} } });
  const reported: Aggregations[] = [];
  const observed = {
    runStarted: runtime.runStarted.bind(runtime),
    runEnded: runtime.runEnded.bind(runtime),
    activityAttempt: <T>(attempt: Parameters<HookRuntime['activityAttempt']>[0], run: () => Promise<T>, aggregated?: (aggregations: Aggregations) => void, failedEarly?: Promise<never>) =>
      runtime.activityAttempt(attempt, run, (aggregations) => {
        reported.push(aggregations);
        aggregated?.(aggregations);
      }, failedEarly),
  };
  const { flowgate } = await composeEmbedded({ workflows: [outlives], env: { ENGINE: 'memory', LOG_LEVEL: 'silent' } }, { observe: () => observed });
  try {
    const { answer: started } = await flowgate.api.start({ workflowName: 'outlives', input: {} });
    const result = await flowgate.api.getResult({ workflowId: started.workflowId }, '2', { seconds: 5 });
    assert.is((result as { status: string }).status, 'failed');
    assert.equal(seen, ['error StepTimeoutError at the timeout, cost 1']);
    while (returnedAt === 0 || reported.length < 2) await new Promise((resolve) => setTimeout(resolve, 20));
    await runtime.bus.settled();
    assert.equal(seen, ['error StepTimeoutError at the timeout, cost 1'], 'no end hook when the function returns');
    assert.equal(reported, [{ totalCost: 1, httpCalls: 0, tokens: 5 }, { totalCost: 2, httpCalls: 0, tokens: 7 }], 'spent before and after the timeout, each once');
  } finally {
    await flowgate.close();
    await runtime.close();
  }
});

test('an LLM cost event whose tokens are not a finite number counts its input and output tokens', async () => {
  const runtime = new HookRuntime([], { logger: { info: () => {}, warn: () => {}, error: () => {} } });
  const reported: Aggregations[] = [];
  const attempt = {
    workflowDetails: { attempt: 1, firstExecutionRunId: 'r', runId: 'r', runStartTime: 1, startTime: 1, workflowId: 'w', workflowType: 't' },
    activityInfo: { activityId: '1', activityType: 't#s', name: 's', attempt: 1 },
    outputActivityKind: 'step' as const,
  };
  try {
    await runtime.activityAttempt(attempt, async () => emit('cost:llm:request', { cost: 1, tokens: Number.NaN, inputTokens: 10, outputTokens: 5 }), (aggregations) => reported.push(aggregations));
  } finally {
    await runtime.close();
  }
  assert.equal(reported, [{ totalCost: 1, httpCalls: 0, tokens: 15 }]);
});

test.run();
