import { z } from 'zod';
import { workflow } from '../../core/definition/index.js';
import { addOne } from '../steps/bench.js';

/** The workflows the benchmarks run (WORKFLOWS_DIR=bench/workflows), on both engines. */

export const benchNoop = workflow({
  name: 'bench_noop',
  description: 'Returns its input: the cheapest run there is',
  inputSchema: z.object({ n: z.number().optional() }),
  outputSchema: z.object({ n: z.number().optional() }),
  fn: async (input) => input,
});

export const benchOneStep = workflow({
  name: 'bench_one_step',
  description: 'Runs one step',
  inputSchema: z.object({ n: z.number() }),
  outputSchema: z.object({ n: z.number() }),
  fn: async ({ n }) => ({ n: await addOne(n) }),
});

export const benchBigResult = workflow({
  name: 'bench_big_result',
  description: 'Returns a string of the given number of bytes',
  inputSchema: z.object({ bytes: z.number().int().min(0) }),
  outputSchema: z.object({ text: z.string() }),
  fn: async ({ bytes }) => ({ text: 'x'.repeat(bytes) }),
});

const orderLine = z.object({ sku: z.string(), name: z.string(), quantity: z.number().int(), unitPrice: z.number(), tags: z.array(z.string()) });

/** An order priced line by line: a history page of realistic JSON (figure 12's compression). */
export const benchOrder = workflow({
  name: 'bench_order',
  description: 'Prices an order, a step per line',
  inputSchema: z.object({ customer: z.string(), lines: z.array(orderLine) }),
  outputSchema: z.object({ customer: z.string(), lines: z.array(orderLine.extend({ total: z.number() })), total: z.number() }),
  fn: async ({ customer, lines }) => {
    const priced = [];
    for (const line of lines) priced.push({ ...line, total: await addOne(line.quantity * line.unitPrice) - 1 });
    return { customer, lines: priced, total: priced.reduce((sum, line) => sum + line.total, 0) };
  },
});

export const benchWaits = workflow({
  name: 'bench_waits',
  description: 'Waits for one webhook reply (keeps a history stream open)',
  inputSchema: z.object({}),
  outputSchema: z.object({ reply: z.unknown() }),
  fn: async (_input, ctx) => ({ reply: await ctx.waitForWebhook() }),
});

export const benchTwoSteps = workflow({
  name: 'bench_two_steps',
  description: 'Runs two steps one after the other (the durable engine figure: each step is committed before the next)',
  inputSchema: z.object({ n: z.number() }),
  outputSchema: z.object({ n: z.number() }),
  fn: async ({ n }) => ({ n: await addOne(await addOne(n)) }),
});

export const benchManySteps = workflow({
  name: 'bench_many_steps',
  description: 'Runs the given number of steps one after the other (the long history of the scale figure)',
  inputSchema: z.object({ steps: z.number().int().min(0) }),
  outputSchema: z.object({ n: z.number() }),
  fn: async ({ steps }) => {
    let n = 0;
    for (let step = 0; step < steps; step++) n = await addOne(n);
    return { n };
  },
});

export const benchFails = workflow({
  name: 'bench_fails',
  description: 'Fails after one step (the failed runs of the scale figure)',
  inputSchema: z.object({ n: z.number() }),
  outputSchema: z.object({}),
  fn: async ({ n }) => {
    await addOne(n);
    throw new Error('bench_fails fails on purpose');
  },
});

/**
 * A history of tens of thousands of events built in seconds: `batches` rounds of `batchSize` steps at once (about
 * three events a step, one workflow task a round instead of a step), then waits for `replies` webhook replies (the
 * keyed control calls figure sends feedback to it many times, and resets to after its last step).
 */
export const benchLongHistory = workflow({
  name: 'bench_long_history',
  description: 'Runs batches of steps in parallel, then waits for the given number of webhook replies',
  inputSchema: z.object({ batches: z.number().int().min(1), batchSize: z.number().int().min(1).max(1000), replies: z.number().int().min(1) }),
  outputSchema: z.object({ replies: z.number() }),
  fn: async ({ batches, batchSize, replies }, ctx) => {
    for (let batch = 0; batch < batches; batch++) await Promise.all(Array.from({ length: batchSize }, (_, index) => addOne(index)));
    for (let reply = 0; reply < replies; reply++) await ctx.waitForWebhook();
    return { replies };
  },
});
