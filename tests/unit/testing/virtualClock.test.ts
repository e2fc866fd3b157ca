import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { VirtualClock, MemoryTraceStore } from '../../../adapters/testing/index.js';

test('the virtual clock fires due timers in order (ties in the order set), never by itself, and refuses the past', async () => {
  const clock = new VirtualClock(new Date('2030-01-01T00:00:00Z'));
  const fired: string[] = [];
  clock.setTimer(300, () => fired.push('c'));
  clock.setTimer(100, () => fired.push('a'));
  clock.setTimer(100, () => fired.push('b'));
  const cancel = clock.setTimer(200, () => fired.push('cancelled'));
  cancel();
  await new Promise((resolve) => setTimeout(resolve, 10));
  assert.equal(fired, [], 'real time does not move it');
  assert.is(clock.nextTimerAt(), Date.parse('2030-01-01T00:00:00.100Z'));
  await clock.advance(150);
  assert.equal(fired, ['a', 'b']);
  assert.is(clock.now(), Date.parse('2030-01-01T00:00:00.150Z'));
  assert.ok(await clock.fireNext());
  assert.equal(fired, ['a', 'b', 'c']);
  assert.is(clock.now(), Date.parse('2030-01-01T00:00:00.300Z'));
  assert.not.ok(await clock.fireNext());
  await clock.advanceTo(new Date('2030-01-02T00:00:00Z'));
  assert.is(clock.now(), Date.parse('2030-01-02T00:00:00Z'));
  try {
    await clock.advanceTo(0);
    assert.unreachable();
  } catch (error) {
    assert.match((error as Error).message, /is before now/);
  }
  assert.throws(() => new VirtualClock(Number.NaN), /start must be a valid date/);
});

test('the memory trace store keeps copies, located by the file store\'s relative path', async () => {
  const store = new MemoryTraceStore();
  const key = { workflowName: 'w', workflowId: 'id/1', runId: 'r', startedAt: new Date('2030-01-01T00:00:00Z') };
  assert.is(await store.locate(key), undefined);
  const trace = { workflowId: 'id/1', runId: 'r', workflowName: 'w', input: { a: 1 }, output: null, error: null, startedAt: '', closedAt: null, steps: [] };
  const location = await store.write(key, trace);
  assert.match(location, /^memory:w\/2030-01-01T00:00:00\.000Z_/);
  trace.input.a = 2;
  assert.equal((await store.read(location))?.input, { a: 1 });
  assert.is(await store.locate(key), location);
  assert.is(await store.read('memory:nothing'), undefined);
  assert.is(store.all().length, 1);
});

test.run();
