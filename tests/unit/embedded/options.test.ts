import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { EmbeddedEngine, type EmbeddedEngineOptions } from '../../../adapters/embedded/index.js';
import { randomIds, systemClock } from '../../../adapters/system/index.js';
import { runIdProblem } from '../../../core/domain/ids.js';
import { RecordingWebhookSender, SequentialIds } from './support.js';
import { ManualClock } from '../../support/manualClock.js';
import { CapturingLogger } from '../../support/logLines.js';

function validOptions(): EmbeddedEngineOptions {
  return { clock: new ManualClock(), ids: new SequentialIds(), logger: new CapturingLogger(), webhookSender: new RecordingWebhookSender() };
}

test('the constructor names the option that is wrong', () => {
  const cases: [Partial<Record<keyof EmbeddedEngineOptions, unknown>>, RegExp][] = [
    [{ clock: { now: () => 0 } }, /options\.clock.*setTimer/],
    [{ ids: {} }, /options\.ids.*uuid/],
    [{ logger: { info() {}, warn() {} } }, /options\.logger.*error/],
    [{ webhookSender: null }, /options\.webhookSender/],
    [{ onRunClosed: 'nope' }, /options\.onRunClosed/],
    [{ maxClosedRuns: 0 }, /options\.maxClosedRuns/],
    [{ maxClosedRuns: 1.5 }, /options\.maxClosedRuns/],
  ];
  for (const [override, pattern] of cases) {
    assert.throws(() => new EmbeddedEngine({ ...validOptions(), ...override } as EmbeddedEngineOptions), pattern);
  }
  assert.throws(() => new EmbeddedEngine(undefined as unknown as EmbeddedEngineOptions), /options must be an object/);
  new EmbeddedEngine(validOptions()).close();
});

test('systemClock fires unref\'d timers and cancels them', async () => {
  const before = systemClock.now();
  assert.ok(Math.abs(before - Date.now()) < 1000);
  let fired = 0;
  // The clock's timers are unref'd, so keep the process alive while waiting for one.
  const keepAlive = setTimeout(() => {}, 1000);
  await new Promise<void>((resolve) => systemClock.setTimer(2, () => resolve()));
  const cancel = systemClock.setTimer(1, () => (fired += 1));
  cancel();
  await new Promise((resolve) => setTimeout(resolve, 10));
  clearTimeout(keepAlive);
  assert.is(fired, 0);
});

test('randomIds gives distinct UUID v4 run ids', () => {
  const a = randomIds.uuid();
  const b = randomIds.uuid();
  assert.is.not(a, b);
  assert.is(runIdProblem(a), undefined);
  assert.match(a, /^[0-9a-f]{8}-[0-9a-f]{4}-4/);
});

test.run();
