import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { z } from 'zod';
import { workflow } from '../../../core/definition/index.js';
import { flush, harness } from './support.js';
import { ManualClock } from '../../support/manualClock.js';

const twoNaps = workflow({
  name: 'two_naps',
  description: 'Sleeps twice and reports when it woke, by its own clock',
  inputSchema: z.object({ first: z.number(), second: z.number() }),
  outputSchema: z.unknown(),
  fn: async ({ first, second }, ctx) => {
    await ctx.sleep(first);
    await ctx.sleep(second);
    return { woke: true };
  },
});
const parallelNaps = workflow({
  name: 'parallel_naps',
  description: 'Sleeps three times at once',
  inputSchema: z.object({}),
  outputSchema: z.unknown(),
  fn: async (_input, ctx) => {
    const order: number[] = [];
    await Promise.all([300, 100, 200].map((ms) => ctx.sleep(ms).then(() => order.push(ms))));
    return order;
  },
});
const badSleep = workflow({
  name: 'bad_sleep',
  description: 'Asks for a negative sleep',
  inputSchema: z.object({}),
  outputSchema: z.unknown(),
  fn: async (_input, ctx) => ctx.sleep(-1),
});

test('ctx.sleep is a durable timer on the engine clock: timer_started, then timer_fired when due', async () => {
  const h = harness([twoNaps]);
  const ref = await h.run(twoNaps, { first: 1000, second: 250 });
  await flush();
  const started = (await h.engine.historyPage(ref, { pageSize: 10 })).page.events.at(-1);
  assert.is(started?.type, 'timer_started');
  assert.is(started?.attributes.durationMs, 1000);
  await h.clock.advance(999);
  assert.is((await h.engine.historyPage(ref, { pageSize: 10 })).page.events.at(-1)?.type, 'timer_started', 'not due yet');
  await h.clock.advance(1);
  await h.clock.advance(249);
  assert.is((await h.engine.describe(ref)).status, 'running');
  await h.clock.advance(1);
  const outcome = await h.engine.getOutcome(ref);
  assert.equal(outcome.output, { woke: true });
  const { page } = await h.engine.historyPage(ref, { pageSize: 10 });
  assert.equal(
    page.events.map((e) => [e.type, e.attributes.durationMs ?? null]),
    [
      ['workflow_started', null],
      ['timer_started', 1000],
      ['timer_fired', null],
      ['timer_started', 250],
      ['timer_fired', null],
      ['workflow_completed', null],
    ],
  );
  const start = Date.parse(page.events[0]!.time);
  assert.is(Date.parse(page.events[2]!.time) - start, 1000, 'event times come from the engine clock');
  assert.is(Date.parse(page.events[4]!.time) - start, 1250);
  assert.is(h.clock.pendingTimers, 0);
  h.close();
});

/** node's timers run on the loop's cached time and may fire a millisecond before their due time by the clock. */
class EarlyTimers extends ManualClock {
  override setTimer(ms: number, callback: () => void): () => void {
    return super.setTimer(ms > 1 ? ms - 1 : ms, callback);
  }
}

test('a timer that fires a millisecond early by the clock waits out the rest: timer_fired is never before its due time', async () => {
  const clock = new EarlyTimers();
  const h = harness([twoNaps], { clock });
  const ref = await h.run(twoNaps, { first: 1000, second: 250 });
  await flush();
  await clock.advance(999);
  const early = (await h.engine.historyPage(ref, { pageSize: 10 })).page.events.map((event) => event.type);
  assert.equal(early, ['workflow_started', 'timer_started'], 'not fired before its due time');
  await clock.advance(1);
  await clock.advance(250);
  assert.equal((await h.engine.getOutcome(ref)).output, { woke: true });
  const { page } = await h.engine.historyPage(ref, { pageSize: 10 });
  const start = Date.parse(page.events[0]!.time);
  assert.equal(
    page.events.filter((event) => event.type === 'timer_fired').map((event) => Date.parse(event.time) - start),
    [1000, 1250],
  );
  h.close();
});

test('parallel timers fire in due order', async () => {
  const h = harness([parallelNaps]);
  const outcome = await h.outcome(await h.run(parallelNaps, {}));
  assert.equal(outcome.output, [100, 200, 300]);
  h.close();
});

test('a negative sleep fails the run with a RangeError', async () => {
  const h = harness([badSleep]);
  const outcome = await h.outcome(await h.run(badSleep, {}));
  assert.is(outcome.run.status, 'failed');
  assert.is(outcome.failure?.name, 'RangeError');
  h.close();
});

test.run();
