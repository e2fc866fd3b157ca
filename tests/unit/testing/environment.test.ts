// flowgate/testing, used as docs/testing.md shows it (from source here; tests/package runs the docs' own files against
// the packed package).
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { z } from 'zod';
import { step, workflow, type WorkflowDefinition } from '../../../core/definition/index.js';
import { createTestEnvironment, type TestEnvironment } from '../../../composition/testing/index.js';

const DAY = 24 * 60 * 60 * 1000;
const HOUR = 60 * 60 * 1000;

let realCharges = 0;
const chargeCard = step({
  name: 'charge_card',
  retry: { maximumAttempts: 3, initialIntervalMs: HOUR },
  fn: async (input: { customerId: string; amountCents: number }) => {
    realCharges += 1;
    return { chargeId: `ch_real_${input.customerId}` };
  },
});
const sendReceipt = step({
  name: 'send_receipt',
  outputSchema: z.object({ sent: z.boolean() }),
  fn: async (_input: { customerId: string; chargeId: string }) => ({ sent: true }),
});

const renewal = workflow({
  name: 'renewal',
  description: 'Charges a subscription a day after the trial, then sends the receipt',
  inputSchema: z.object({ customerId: z.string(), amountCents: z.number().int().positive().default(990) }),
  outputSchema: z.object({ chargeId: z.string(), receiptSent: z.boolean() }),
  fn: async ({ customerId, amountCents }, ctx) => {
    await ctx.sleep(DAY);
    const { chargeId } = await chargeCard({ customerId, amountCents });
    const { sent } = await sendReceipt({ customerId, chargeId });
    return { chargeId, receiptSent: sent };
  },
});

const timers = workflow({
  name: 'timers',
  description: 'Three sleeps at once; reports the order they ended in',
  inputSchema: z.object({}),
  outputSchema: z.object({ order: z.array(z.number()) }),
  fn: async (_input, ctx) => {
    const order: number[] = [];
    await Promise.all([3, 1, 2].map(async (hours) => {
      await ctx.sleep(hours * HOUR);
      order.push(hours);
    }));
    return { order };
  },
});

const approval = workflow({
  name: 'approval',
  description: 'Asks a reviewer, waits up to a week for the answer',
  inputSchema: z.object({ request: z.string() }),
  outputSchema: z.object({ approved: z.boolean() }),
  fn: async ({ request }, ctx) => {
    try {
      return await ctx.waitForWebhook<{ approved: boolean }>({ url: 'https://reviews.example/hooks', payload: { request }, timeoutMs: 7 * DAY });
    } catch {
      return { approved: false };
    }
  },
});

const kit = suite<{ env: TestEnvironment }>('flowgate/testing: a test environment on a virtual clock');

kit.before(async (context) => {
  context.env = await createTestEnvironment({ workflows: [renewal, timers, approval], startTime: new Date('2030-01-01T00:00:00Z') });
});

kit.after(async (context) => {
  await context.env?.close();
});

kit('a workflow that sleeps a day finishes in milliseconds; result, history and trace to assert on', async ({ env }) => {
  const began = Date.now();
  const result = await env.run(renewal, { customerId: 'c-1' });
  assert.ok(Date.now() - began < 2_000, `took ${Date.now() - began} ms of real time`);
  assert.is(result.status, 'completed');
  assert.equal(result.output, { chargeId: 'ch_real_c-1', receiptSent: true });
  assert.ok(env.clock.now() >= Date.parse('2030-01-02T00:00:00Z'), 'a day passed on the virtual clock');
  const history = await env.history(result.workflowId);
  assert.equal(
    history.map((event) => event.type),
    ['workflow_started', 'timer_started', 'timer_fired', 'step_scheduled', 'step_started', 'step_completed', 'step_scheduled', 'step_started', 'step_completed', 'workflow_completed'],
  );
  const trace = await env.trace(result.workflowId);
  assert.equal(trace.steps.map((entry) => [entry.name, entry.output]), [
    ['charge_card', { chargeId: 'ch_real_c-1' }],
    ['send_receipt', { sent: true }],
  ]);
  assert.ok(env.traces.all().some((entry) => entry.runId === result.runId), 'kept in memory');
});

kit('timers fire in the order they are due', async ({ env }) => {
  const result = await env.run(timers, {});
  assert.equal(result.output, { order: [1, 2, 3] });
});

kit('a webhook call is recorded; the reply is given with feedback; its week-long time limit skips too', async ({ env }) => {
  const { workflowId } = await env.start(approval, { request: 'expense #7' });
  // Feedback before awaiting the result: while a result is awaited, time skips to the wait's own limit.
  await env.feedback(workflowId, { approved: true });
  assert.equal((await env.result<{ approved: boolean }>(workflowId)).output, { approved: true });
  assert.equal(env.webhookCalls.at(-1)?.payload, { request: 'expense #7' });
  const timedOut = await env.run(approval, { request: 'nobody answers' });
  assert.equal(timedOut.output, { approved: false }, 'the week passed in no time');
});

kit('the HTTP handler over the same environment: run-and-wait with a short timeout still gets the day-long run, and its trace', async ({ env }) => {
  const answer = await env.fetchHandler(
    new Request('http://test/workflow/run', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ workflowName: 'renewal', input: { customerId: 'c-http' }, timeout: 5 }),
    }),
  );
  assert.is(answer.status, 200, 'the 5 s wait runs on real time; the day on the virtual clock');
  const body = (await answer.json()) as { workflowId: string; runId: string; output: unknown; trace: { local?: string } };
  assert.equal(body.output, { chargeId: 'ch_real_c-http', receiptSent: true });
  assert.match(String(body.trace.local), /^memory:renewal\//);
  const traceLog = await env.fetchHandler(new Request(`http://test/workflow/${body.workflowId}/runs/${body.runId}/trace-log`));
  const log = (await traceLog.json()) as { source: string; data: { steps: unknown[] } };
  assert.is(log.source, 'local');
  assert.is(log.data.steps.length, 2);
});

kit.run();

const replaced = suite('flowgate/testing: steps replaced by name');

replaced('the replacement runs instead of the step, with the step\'s retries (on the virtual clock) and checks', async () => {
  realCharges = 0;
  let attempts = 0;
  const env = await createTestEnvironment({
    workflows: [renewal],
    steps: {
      charge_card: async () => {
        attempts += 1;
        if (attempts < 3) throw new Error('card network down');
        return { chargeId: 'ch_test' };
      },
    },
  });
  try {
    const result = await env.run(renewal, { customerId: 'c-2', amountCents: 500 });
    assert.equal(result.output, { chargeId: 'ch_test', receiptSent: true });
    assert.is(realCharges, 0, 'the real step never ran');
    assert.is(attempts, 3, 'two retries an hour apart, skipped');
    const trace = await env.trace(result.workflowId, result.runId);
    assert.equal(trace.steps.map((entry) => [entry.name, entry.attempt]), [['charge_card', 3], ['send_receipt', 1]]);
    assert.equal(trace.steps[0]?.input, { customerId: 'c-2', amountCents: 500 });
  } finally {
    await env.close();
  }
});

replaced('a replacement that breaks the step\'s output schema fails the run, as the real step would', async () => {
  const env = await createTestEnvironment({ workflows: [renewal], steps: { send_receipt: async () => ({ sent: 'yes' }) } });
  try {
    const result = await env.run(renewal, { customerId: 'c-3' });
    assert.is(result.status, 'failed');
    assert.is(result.error?.activityType, 'renewal#send_receipt');
  } finally {
    await env.close();
  }
});

replaced('with workflows given as definitions, a misspelled replacement is refused, naming the steps defined; nothing runs', async () => {
  realCharges = 0;
  const error = await createTestEnvironment({ workflows: [renewal], steps: { chargecard: async () => ({ chargeId: 'ch_test' }) } }).then(
    () => undefined,
    (caught: unknown) => caught as Error,
  );
  assert.instance(error, TypeError);
  // Named after the function the test called; flowgate's internal webhook step (defined by every engine made in the
  // process) is no step to replace, and not listed.
  const listed = /^createTestEnvironment: steps\.chargecard replaces no step: the steps defined are (.+)$/.exec(error!.message)?.[1]?.split(', ');
  assert.ok(listed, error!.message);
  assert.ok(listed.includes('charge_card') && listed.includes('send_receipt'), error!.message);
  assert.not.ok(listed.includes('webhook'), error!.message);
  assert.equal(listed, [...listed].sort(), 'sorted');
  assert.is(realCharges, 0);
});

replaced('definitions imported from the project\'s modules, as a test file imports them: a misspelled replacement is refused, the right one runs', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'fg-testing-'));
  const core = fileURLToPath(new URL('../../../core/definition/index.ts', import.meta.url));
  const zod = fileURLToPath(import.meta.resolve('zod'));
  try {
    await writeFile(join(dir, 'billing.ts'), `import { step } from ${JSON.stringify(core)};\nexport const refund = step({ name: 'refund_payment', fn: async (id: string) => 'refunded ' + id });\n`);
    await writeFile(
      join(dir, 'refunds.ts'),
      `import { z } from ${JSON.stringify(zod)};\nimport { workflow } from ${JSON.stringify(core)};\nimport { refund } from './billing.js';\n` +
        `export const refunds = workflow({ name: 'refunds', description: '', inputSchema: z.object({ id: z.string() }), outputSchema: z.string(), fn: async ({ id }) => refund(id) });\n`,
    );
    const { refunds } = (await import(pathToFileURL(join(dir, 'refunds.ts')).href)) as { refunds: WorkflowDefinition<{ id: string }, string> };
    const error = await createTestEnvironment({ workflows: [refunds], steps: { refund: async () => 'fake' } }).then(() => undefined, (caught: unknown) => caught as Error);
    assert.match(String(error?.message), /^createTestEnvironment: steps\.refund replaces no step: the steps defined are .*\brefund_payment\b/);
    const env = await createTestEnvironment({ workflows: [refunds], steps: { refund_payment: async (id: string) => `fake refund of ${id}` } });
    try {
      assert.is((await env.run(refunds, { id: 'p-1' })).output, 'fake refund of p-1');
    } finally {
      await env.close();
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

replaced('with a workflows directory, a replacement naming no step is refused, listing the steps there', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'fg-testing-'));
  const core = fileURLToPath(new URL('../../../core/definition/index.ts', import.meta.url));
  const zod = fileURLToPath(import.meta.resolve('zod'));
  try {
    await writeFile(join(dir, 'steps.ts'), `import { step } from ${JSON.stringify(core)};\nexport const greet = step({ name: 'greet', fn: async (name: string) => 'hello ' + name });\n`);
    await writeFile(
      join(dir, 'hello.ts'),
      `import { z } from ${JSON.stringify(zod)};\nimport { workflow } from ${JSON.stringify(core)};\nimport { greet } from './steps.js';\n` +
        `export const hello = workflow({ name: 'hello', description: '', inputSchema: z.object({ name: z.string() }), outputSchema: z.string(), fn: async ({ name }) => greet(name) });\n`,
    );
    const error = await createTestEnvironment({ workflowsDir: dir, steps: { greeet: async () => 'x' } }).then(() => undefined, (caught: unknown) => caught as Error);
    assert.match(String(error?.message), /steps\.greeet replaces no step: the workflows' step modules have greet/);
    const env = await createTestEnvironment({ workflowsDir: dir, steps: { greet: async (name: string) => `hi ${name}` } });
    try {
      assert.is((await env.run('hello', { name: 'Ada' })).output, 'hi Ada');
    } finally {
      await env.close();
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

replaced.run();

const manual = suite('flowgate/testing: time moved by hand');

manual('timeSkipping: false leaves the clock to the test: advance() moves it and fires what is due', async () => {
  const env = await createTestEnvironment({ workflows: [renewal], timeSkipping: false, startTime: 0 });
  try {
    const { workflowId, runId } = await env.start(renewal, { customerId: 'c-4' });
    await env.clock.advance(DAY - 1);
    assert.is((await env.api.getStatus({ workflowId, runId })).status, 'running');
    assert.is(env.clock.pendingTimers, 1);
    await env.clock.advance(1);
    assert.is((await env.result(workflowId, runId)).status, 'completed');
  } finally {
    await env.close();
  }
});

manual('a run that waits on what only the test can give: result() fails after its real-time limit, saying so', async () => {
  const forever = workflow({ name: 'forever', description: '', inputSchema: z.object({}), outputSchema: z.unknown(), fn: async (_i, ctx) => ctx.waitForWebhook({}) });
  const env = await createTestEnvironment({ workflows: [forever] });
  try {
    const { workflowId } = await env.start(forever, {});
    const error = await env.result(workflowId, undefined, { timeoutSeconds: 0.2 }).then(() => undefined, (caught: unknown) => caught as Error);
    assert.is(error?.name, 'WorkflowNotCompletedError');
    assert.match(String(error?.message), /did not close within 0\.2 s of real time: no timer is pending, so it waits on what only the test can give/);
    await env.feedback(workflowId, { done: true });
    assert.equal((await env.result(workflowId)).output, { done: true });
  } finally {
    await env.close();
  }
});

manual.run();
