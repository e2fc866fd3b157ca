import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { HookBus } from '../../../adapters/hooks/hookBus.js';
import { defineHooks, type HookRegistrar } from '../../../core/definition/hooks.js';
import type { LogFields } from '../../../ports/logger.js';

const details = { attempt: 1, firstExecutionRunId: 'r1', runId: 'r1', runStartTime: 2, startTime: 1, workflowId: 'w1', workflowType: 'wt' };
const activity = { workflowDetails: details, activityInfo: { activityId: '1', activityType: 'wt#s', name: 's', attempt: 1 }, outputActivityKind: 'step' as const };

function busWith(register: (hooks: HookRegistrar) => void, options: { handlerTimeoutMs?: number } = {}) {
  const warnings: { msg: string; fields?: LogFields }[] = [];
  let ids = 0;
  const bus = new HookBus([defineHooks(register)], {
    logger: { info: () => {}, warn: (msg, fields) => warnings.push({ msg, ...(fields ? { fields } : {}) }), error: () => {} },
    now: () => 42,
    newId: () => `id-${++ids}`,
    ...options,
  });
  return { bus, warnings };
}

test('fire delivers to every handler of the hook, in registration order, with a fresh envelope', async () => {
  const seen: string[] = [];
  const { bus } = busWith((hooks) => {
    hooks.onWorkflowStart((event) => void seen.push(`a:${event.eventId}:${event.eventDate}`));
    hooks.onWorkflowStart((event) => void seen.push(`b:${event.eventId}`));
  });
  bus.fire('onWorkflowStart', { ...bus.envelope(), workflowDetails: details });
  await bus.settled();
  assert.equal(seen, ['a:id-1:42', 'b:id-1']);
});

test('each handler gets its own copy: one handler mutating its payload does not change what the next sees', async () => {
  const seen: unknown[] = [];
  const { bus } = busWith((hooks) => {
    hooks.onWorkflowEnd((event) => {
      (event.workflowDetails as { workflowId: string }).workflowId = 'changed';
    });
    hooks.onWorkflowEnd((event) => void seen.push(event.workflowDetails.workflowId));
  });
  const payload = { ...bus.envelope(), workflowDetails: { ...details } };
  bus.fire('onWorkflowEnd', payload);
  await bus.settled();
  assert.equal(seen, ['w1']);
  assert.is(payload.workflowDetails.workflowId, 'w1');
});

test('named events: presets of eventId and eventDate win; empty or non-finite presets are replaced', async () => {
  const seen: any[] = [];
  const { bus } = busWith((hooks) => hooks.on('custom', (event) => void seen.push(event)));
  bus.fireNamed('custom', activity, { eventId: 'preset', eventDate: 7, n: 1 });
  bus.fireNamed('custom', activity, { eventId: '', eventDate: Number.NaN, n: 2 });
  await bus.settled();
  assert.equal(seen.map((event) => [event.eventId, event.eventDate, event.n]), [
    ['preset', 7, 1],
    ['id-1', 42, 2],
  ]);
  assert.equal(Object.keys(seen[0]).sort(), ['activityInfo', 'eventDate', 'eventId', 'n', 'outputActivityKind', 'workflowDetails']);
});

test('nothing is built or delivered for a name nobody listens to', async () => {
  const { bus } = busWith(() => {});
  assert.ok(bus.empty);
  assert.not.ok(bus.listens('onWorkflowStart'));
  bus.fireNamed('nobody', activity, {});
  await bus.settled();
});

test('a throwing, a rejecting and a hanging handler are each reported once through onError (runtime) and logged', async () => {
  const errors: any[] = [];
  const { bus, warnings } = busWith(
    (hooks) => {
      hooks.onActivityStart(() => {
        throw new Error('sync boom');
      });
      hooks.onActivityStart(async () => {
        throw new TypeError('async boom');
      });
      hooks.onActivityStart(() => new Promise<void>(() => {}));
      hooks.onError((event) => void errors.push(event));
    },
    { handlerTimeoutMs: 50 },
  );
  bus.fire('onActivityStart', { ...bus.envelope(), ...activity });
  // The bus's timers do not hold the process open (a hanging hook must not keep a worker alive); this test does.
  const keepAlive = setInterval(() => {}, 1000);
  await bus.settled().finally(() => clearInterval(keepAlive));
  assert.equal(errors.map((event) => [event.source, event.error.name, event.error.hook]).sort(), [
    ['runtime', 'Error', 'onActivityStart'],
    ['runtime', 'HookTimeoutError', 'onActivityStart'],
    ['runtime', 'TypeError', 'onActivityStart'],
  ]);
  assert.equal(Object.keys(errors[0]).sort(), ['error', 'eventDate', 'eventId', 'source']);
  assert.is(warnings.length, 3);
  assert.match(errors.find((event) => event.error.name === 'HookTimeoutError').error.message, 'did not finish within 50 ms');
});

test('a failing onError handler is only logged, never reported to onError again (no loop)', async () => {
  let calls = 0;
  const { bus, warnings } = busWith((hooks) => {
    hooks.onWorkflowStart(() => {
      throw new Error('first');
    });
    hooks.onError(() => {
      calls += 1;
      throw new Error('second');
    });
  });
  bus.fire('onWorkflowStart', { ...bus.envelope(), workflowDetails: details });
  await bus.settled();
  assert.is(calls, 1);
  assert.equal(warnings.map((warning) => warning.fields?.hook), ['onWorkflowStart', 'onError']);
});

test('registration rejects a handler that is not a function and an empty event name', () => {
  assert.throws(() => busWith((hooks) => hooks.onWorkflowStart('nope' as never)), /onWorkflowStart must be a function/);
  assert.throws(() => busWith((hooks) => hooks.on('', () => {})), /non-empty string/);
});

test.run();
