import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { currentFeedbackWait, feedbackWaitsOf, trackFeedbackWaits } from '../../core/domain/feedbackWaits.js';
import type { HistoryEvent } from '../../core/domain/history.js';

/** core/domain/feedbackWaits.ts: a run's waits for feedback read from its history (both engines' shapes). */

const T0 = Date.parse('2026-01-01T00:00:00.000Z');
const at = (ms: number) => new Date(T0 + ms).toISOString();
let nextId = 1;
const event = (ms: number, type: string, attributes: Record<string, unknown> = {}): HistoryEvent => ({ eventId: nextId++, type, time: at(ms), attributes });
const ends = (events: HistoryEvent[]) => feedbackWaitsOf(events).map((wait) => [wait.eventId, wait.end, wait.endedAt === undefined ? undefined : Date.parse(wait.endedAt) - T0, wait.replyEventId]);

test('a wait is open from its event until the reply that serves it', () => {
  nextId = 1;
  const events = [event(0, 'workflow_started'), event(10, 'step_completed'), event(20, 'feedback_wait_started')];
  const [open] = feedbackWaitsOf(events);
  assert.equal(open, { eventId: 3, startedAt: at(20) });
  assert.is(currentFeedbackWait(feedbackWaitsOf(events), T0 + 5_000)?.eventId, 3);
  events.push(event(900, 'signal_received', { signalName: 'feedback', payload: {} }), event(950, 'workflow_completed'));
  assert.equal(ends(events), [[3, 'feedback', 900, 4]]);
  assert.is(currentFeedbackWait(feedbackWaitsOf(events), T0 + 5_000), undefined);
});

test('replies serve waits oldest first; a reply with no wait open (buffered) serves none', () => {
  nextId = 1;
  const events = [
    event(0, 'workflow_started'),
    event(5, 'signal_received'),
    event(10, 'feedback_wait_started'),
    event(11, 'feedback_wait_started'),
    event(50, 'signal_received'),
    event(60, 'signal_received'),
  ];
  assert.equal(ends(events), [
    [3, 'feedback', 50, 5],
    [4, 'feedback', 60, 6],
  ]);
});

test('a wait with a time limit ends when it passes, before a later reply; it is not current once it passed', () => {
  nextId = 1;
  const events = [event(0, 'workflow_started'), event(10, 'feedback_wait_started', { timeoutMs: 1_000 })];
  const waits = feedbackWaitsOf(events);
  assert.is(currentFeedbackWait(waits, T0 + 900)?.eventId, 2);
  assert.is(currentFeedbackWait(waits, T0 + 1_010), undefined, 'its limit passed a moment ago');
  events.push(event(1_200, 'signal_received'), event(1_300, 'step_scheduled'));
  assert.equal(ends(events), [[2, 'timed_out', 1_010, undefined]]);
});

test('a stop, a reset and the run\'s close end the waits still open', () => {
  nextId = 1;
  assert.equal(ends([event(0, 'workflow_started'), event(10, 'feedback_wait_started'), event(30, 'workflow_cancel_requested'), event(40, 'workflow_cancelled')]), [[2, 'cancel_requested', 30, undefined]]);
  nextId = 1;
  assert.equal(ends([event(0, 'workflow_started'), event(10, 'feedback_wait_started'), event(30, 'workflow_reset'), event(40, 'feedback_wait_started')]), [
    [2, 'reset', 30, undefined],
    [4, undefined, undefined, undefined],
  ]);
  nextId = 1;
  assert.equal(ends([event(0, 'workflow_started'), event(10, 'feedback_wait_started'), event(70, 'workflow_terminated', { reason: 'x' })]), [[2, 'run_closed', 70, undefined]]);
});

test('an event that changes nothing hands the same list back', () => {
  nextId = 1;
  const waits = feedbackWaitsOf([event(0, 'workflow_started'), event(10, 'feedback_wait_started')]);
  assert.is(trackFeedbackWaits(waits, event(20, 'step_scheduled')), waits);
});

test.run();
