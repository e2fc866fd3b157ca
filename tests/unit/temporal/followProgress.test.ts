import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { followRunWithProgress } from '../../../adapters/temporal/engine/followProgress.js';
import { HISTORY_PAGE_MAX_BYTES } from '../../../core/domain/history.js';
import type { RunStreamItem } from '../../../ports/engine.js';
import { FakeClient } from './fakeClient.js';
import { arithmeticHistory, payloads, rawEvent } from './protoFixtures.js';

/** A long poll that never answers until cancelled (the server holds it while nothing happens). */
const hanging = () => new Promise<never>(() => {});
const tick = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Answers each long poll with the next of `events`, one a page, then holds the poll. */
function onePerPoll(events: ReturnType<typeof rawEvent>[]) {
  return (request: { nextPageToken?: Uint8Array }) => {
    const index = request.nextPageToken?.length ? Number(Buffer.from(request.nextPageToken).toString()) : 0;
    if (index >= events.length) return hanging();
    return { history: { events: [events[index]] }, nextPageToken: Buffer.from(String(index + 1)) };
  };
}

test('a step scheduled while the history waits wakes the loop: its progress is read while it runs', async () => {
  const steps = arithmeticHistory().slice(0, 5); // started, a workflow task, the step scheduled
  const client = new FakeClient({
    getWorkflowExecutionHistory: onePerPoll(steps),
    describeWorkflowExecution: () => ({
      pendingActivities: [{ activityId: '1', heartbeatDetails: payloads({ flowgateProgress: [{ seq: 1, attempt: 1, time: 't', fields: { done: 3 } }] }) }],
    }),
  });
  const controller = new AbortController();
  const items: RunStreamItem[] = [];
  try {
    for await (const item of followRunWithProgress(client.calls(), { workflowId: 'w', runId: 'r' }, 0, controller.signal, 10, HISTORY_PAGE_MAX_BYTES)) {
      items.push(item);
      if (item.kind === 'progress') break;
    }
  } finally {
    controller.abort();
  }
  const progress = items.at(-1);
  assert.is(progress?.kind, 'progress');
  assert.equal(progress?.kind === 'progress' && [progress.progress.stepEventId, progress.progress.seq, progress.progress.fields], [2, 1, { done: 3 }]);
});

test('an event sent is let go: a follower with no step running holds the event being read, not every event it sent', async () => {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  const timers = 200;
  const history = [
    arithmeticHistory()[0]!,
    ...Array.from({ length: timers }, (_, index) => rawEvent(index + 2, 'EVENT_TYPE_TIMER_STARTED', { timerStartedEventAttributes: { timerId: `t${index}`, startToFireTimeout: { seconds: '60' } } })),
  ];
  const client = new FakeClient({ getWorkflowExecutionHistory: onePerPoll(history) });
  const controller = new AbortController();
  let collected = 0;
  const sent = new FinalizationRegistry<number>(() => (collected += 1));
  const follower = followRunWithProgress(client.calls(), { workflowId: 'w', runId: 'r' }, 0, controller.signal, 10, HISTORY_PAGE_MAX_BYTES);
  try {
    for (let count = 0; count <= timers; count += 1) {
      const { value } = await follower.next();
      assert.is(value?.kind, 'history');
      if (value?.kind === 'history') sent.register(value.event, value.event.eventId);
    }
    // The follower is open, in a long poll that does not answer: what it sent is garbage now.
    for (let round = 0; round < 10 && collected < timers; round += 1) {
      gc();
      await tick(10);
    }
    assert.ok(collected >= timers, `${collected} of the ${timers + 1} events sent were collected while the follower stayed open`);
  } finally {
    controller.abort();
    await follower.return(undefined);
  }
});

test('a step that runs long without events: each progress poll is let go (the heap stays flat over thousands of polls)', async () => {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  const heapAfterCollection = async () => {
    client.requests.length = 0; // the fake's own record of requests
    for (let round = 0; round < 3; round += 1) {
      gc();
      await tick(1);
    }
    return process.memoryUsage().heapUsed;
  };
  let describes = 0;
  const client = new FakeClient({
    getWorkflowExecutionHistory: onePerPoll(arithmeticHistory().slice(0, 5)), // the step scheduled, then no event
    describeWorkflowExecution: () => {
      describes += 1;
      return { pendingActivities: [] };
    },
  });
  const controller = new AbortController();
  const follower = followRunWithProgress(client.calls(), { workflowId: 'w', runId: 'r' }, 0, controller.signal, 0, HISTORY_PAGE_MAX_BYTES);
  const polls = async (count: number) => {
    const until = describes + count;
    while (describes < until) await tick(20);
  };
  try {
    for (let event = 0; event < 2; event += 1) await follower.next(); // workflow_started, step_scheduled
    const pending = follower.next(); // polls on, with no progress to yield
    await polls(1000); // past the first compilations
    const before = await heapAfterCollection();
    await polls(3000);
    const grown = (await heapAfterCollection()) - before;
    assert.ok(grown < 384 * 1024, `3,000 polls of a running step left ${(grown / 1024).toFixed(0)} KiB behind`);
    controller.abort();
    assert.is((await pending).done, true);
  } finally {
    controller.abort();
    await follower.return(undefined);
  }
});

test.run();
