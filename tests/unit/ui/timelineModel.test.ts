import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { HistoryEvent } from '../../../core/domain/history.js';
import type { TraceStep } from '../../../core/domain/trace.js';
import { buildTimeline, currentWait, timelineSpan } from '../../../ui/src/timelineModel.js';

/** The run page's timeline model (ui/src/timelineModel.ts) from histories shaped as each engine writes them. */

const T0 = Date.parse('2026-01-01T00:00:00.000Z');
const at = (ms: number) => new Date(T0 + ms).toISOString();
let nextId = 1;
const event = (ms: number, type: string, attributes: Record<string, unknown> = {}, stepName?: string): HistoryEvent => ({
  eventId: nextId++,
  type,
  time: at(ms),
  ...(stepName ? { stepName } : {}),
  attributes,
});
const traceStep = (name: string, startMs: number, endMs: number, attempt: number, aggregations?: TraceStep['aggregations']): TraceStep => ({
  name,
  kind: 'step',
  input: null,
  output: null,
  error: null,
  startedAt: at(startMs),
  endedAt: at(endMs),
  attempt,
  ...(aggregations ? { aggregations } : {}),
});

test('the embedded engine: one bar per attempt, the failed ones failed, the call completed', () => {
  nextId = 1;
  const events = [
    event(0, 'workflow_started'),
    event(1, 'step_scheduled', { kind: 'step', input: { n: 1 } }, 'parse'),
    event(2, 'step_started', { attempt: 1 }, 'parse'),
    event(10, 'step_failed', { attempt: 1, error: { name: 'Error', message: 'first' } }, 'parse'),
    event(210, 'step_started', { attempt: 2 }, 'parse'),
    event(230, 'step_completed', { attempt: 2, output: 'ok' }, 'parse'),
  ];
  const [row] = buildTimeline(events);
  assert.is(row!.name, 'parse');
  assert.is(row!.state, 'completed');
  assert.is(row!.attemptCount, 2);
  assert.equal(row!.attempts.map(({ attempt, startedAt, endedAt, outcome }) => [attempt, startedAt - T0, endedAt! - T0, outcome]), [
    [1, 2, 10, 'failed'],
    [2, 210, 230, 'completed'],
  ]);
  assert.is(row!.output, 'ok');
  assert.is(row!.error, undefined, 'an earlier attempt\'s failure is not the call\'s');
});

test('Temporal: only the last attempt is in the history; one bar stands for the earlier ones from the schedule', () => {
  nextId = 1;
  const events = [
    event(0, 'workflow_started'),
    event(1, 'step_scheduled', { kind: 'step' }, 'parse'),
    event(300, 'step_started', { attempt: 3 }, 'parse'),
  ];
  const [row] = buildTimeline(events);
  assert.is(row!.attemptCount, 3);
  assert.equal(row!.attempts.map((bar) => [bar.attempt, bar.startedAt - T0, bar.endedAt === undefined ? null : bar.endedAt - T0, bar.outcome, bar.earlier ?? false]), [
    [2, 1, 300, 'failed', true],
    [3, 300, null, 'running', false],
  ]);
});

test('Temporal, closed: the trace says when the first attempt began, and adds the aggregations', () => {
  nextId = 1;
  const events = [
    event(0, 'workflow_started'),
    event(1, 'step_scheduled', { kind: 'step' }, 'parse'),
    event(300, 'step_started', { attempt: 3 }, 'parse'),
    event(320, 'step_completed', { attempt: 3, output: 1 }, 'parse'),
  ];
  const [row] = buildTimeline(events, [], [traceStep('parse', 2, 320, 3, { totalCost: 0.5, httpCalls: 2, tokens: 40 })]);
  assert.is(row!.attemptCount, 3);
  assert.equal(row!.attempts.map((bar) => [bar.attempt, bar.startedAt - T0, bar.endedAt! - T0, bar.outcome, bar.earlier ?? false]), [
    [2, 2, 300, 'failed', true],
    [3, 300, 320, 'completed', false],
  ]);
  assert.equal(row!.aggregations, { totalCost: 0.5, httpCalls: 2, tokens: 40 });
});

test('calls of the same step: each attempt goes to its own call; the trace lines up from the end (a reset run)', () => {
  nextId = 1;
  const events = [
    event(0, 'step_scheduled', { kind: 'step' }, 'add'),
    event(1, 'step_started', { attempt: 1 }, 'add'),
    event(2, 'step_completed', { attempt: 1, output: 2 }, 'add'),
    event(3, 'step_scheduled', { kind: 'evaluator' }, 'add'),
    event(4, 'step_started', { attempt: 1 }, 'add'),
    event(9, 'step_completed', { attempt: 1, output: 3 }, 'add'),
  ];
  const rows = buildTimeline(events, [], [traceStep('add', 4, 9, 1, { totalCost: 1, httpCalls: 0, tokens: 0 })]);
  assert.equal(rows.map((row) => [row.kind, row.output, row.aggregations?.totalCost]), [
    ['step', 2, undefined],
    ['evaluator', 3, 1],
  ]);
});

test('a running step: no end, its latest progress; a scheduled one has no attempt yet', () => {
  nextId = 1;
  const events = [event(0, 'step_scheduled', { kind: 'step' }, 'fetch'), event(1, 'step_started', { attempt: 1 }, 'fetch'), event(2, 'step_scheduled', { kind: 'step' }, 'later')];
  const progress = [1, 3, 2].map((seq) => ({ stepEventId: 1, stepName: 'fetch', attempt: 1, seq, time: at(seq), fields: { page: seq } }));
  const [fetch, later] = buildTimeline(events, progress);
  assert.is(fetch!.state, 'running');
  assert.is(fetch!.endedAt, undefined);
  assert.equal(fetch!.progress?.fields, { page: 3 }, 'the highest seq, whatever the arrival order');
  assert.is(later!.state, 'scheduled');
  assert.equal(later!.attempts, []);
});

test('timers and child runs have rows: a timer fires by its due time, a child ends by its ids', () => {
  nextId = 1;
  const events = [
    event(0, 'timer_started', { durationMs: 500 }),
    event(1, 'timer_started', { durationMs: 50 }),
    event(51, 'timer_fired'),
    event(2, 'child_started', { workflowName: 'kid', childWorkflowId: 'k', childRunId: 'r' }),
    event(60, 'child_failed', { childWorkflowId: 'k', childRunId: 'r', error: { name: 'E', message: 'no' } }),
  ];
  const [long, short, child] = buildTimeline(events);
  assert.is(long!.state, 'running', 'the 500 ms timer has not fired');
  assert.is(short!.state, 'completed');
  assert.is(short!.timerMs, 50);
  assert.is(child!.kind, 'child');
  assert.equal(child!.child, { workflowId: 'k', runId: 'r', workflowName: 'kid' });
  assert.is(child!.state, 'failed');
  assert.equal(child!.error, { name: 'E', message: 'no' });
});

test('a reset run: the calls before workflow_reset were copied from the run it started from', () => {
  nextId = 1;
  const events = [
    event(-1600, 'step_scheduled', { kind: 'step' }, 'add_one'),
    event(-1599, 'step_started', { attempt: 1 }, 'add_one'),
    event(-1598, 'step_completed', { attempt: 1, output: 5 }, 'add_one'),
    event(0, 'workflow_reset', { stepName: 'add_one', resetFromRunId: 'r0' }),
    event(1, 'step_scheduled', { kind: 'step' }, 'double'),
  ];
  assert.equal(buildTimeline(events).map((row) => [row.name, row.replayed ?? false]), [
    ['add_one', true],
    ['double', false],
  ]);
});

test('a wait for feedback is a row whose bar runs from when it began to the reply that served it', () => {
  nextId = 1;
  const events = [
    event(0, 'workflow_started'),
    event(1, 'step_scheduled', { kind: 'step' }, 'add_one'),
    event(2, 'step_started', { attempt: 1 }, 'add_one'),
    event(5, 'step_completed', { attempt: 1, output: 2 }, 'add_one'),
    event(6, 'feedback_wait_started'),
  ];
  const open = buildTimeline(events);
  assert.equal(open.map((row) => [row.kind, row.name, row.state]), [
    ['step', 'add_one', 'completed'],
    ['feedback', 'feedback', 'running'],
  ]);
  const waiting = open[1]!;
  assert.equal(waiting.attempts.map(({ startedAt, endedAt, outcome }) => [startedAt - T0, endedAt, outcome]), [[6, undefined, 'running']]);
  assert.is(currentWait(open, T0 + 60_000)?.startedAt, at(6), 'the run waits, since the event');

  events.push(event(4_000, 'signal_received', { signalName: 'feedback', payload: { ok: true } }), event(4_010, 'workflow_completed'));
  const served = buildTimeline(events)[1]!;
  assert.is(served.state, 'completed');
  assert.is(served.endedAt! - T0, 4_000, 'ends at the reply');
  assert.equal(served.attempts.map(({ startedAt, endedAt, outcome }) => [startedAt - T0, endedAt! - T0, outcome]), [[6, 4_000, 'completed']]);
  assert.is(served.wait?.end, 'feedback');
  assert.is(currentWait(buildTimeline(events), T0 + 60_000), undefined);
});

test('a finished run\'s wait that no reply served ends at the close (or its time limit), failed', () => {
  nextId = 1;
  const terminated = buildTimeline([event(0, 'workflow_started'), event(6, 'feedback_wait_started'), event(9_000, 'workflow_terminated', { reason: 'x' })]);
  assert.equal(terminated.map((row) => [row.kind, row.state, row.endedAt! - T0, row.wait?.end]), [['feedback', 'failed', 9_000, 'run_closed']]);
  assert.equal(timelineSpan(terminated, T0, T0 + 9_000), { start: T0, end: T0 + 9_000 });
  nextId = 1;
  const timedOut = buildTimeline([event(0, 'workflow_started'), event(6, 'feedback_wait_started', { timeoutMs: 1_500 }), event(1_510, 'workflow_failed')]);
  assert.equal(timedOut.map((row) => [row.state, row.endedAt! - T0, row.wait?.end, row.wait?.timeoutMs]), [['failed', 1_506, 'timed_out', 1_500]]);
});

test('Temporal: the timer a wait with a time limit starts in the same task is the wait\'s, not a sleep', () => {
  nextId = 1;
  const rows = buildTimeline([
    event(0, 'workflow_started'),
    event(6, 'feedback_wait_started', { timeoutMs: 60_000 }),
    event(6, 'timer_started', { timerId: '1', durationMs: 60_000 }),
    event(10, 'timer_started', { timerId: '2', durationMs: 50 }),
    event(60, 'timer_fired', { timerId: '2' }),
    event(900, 'signal_received', { signalName: 'feedback', payload: {} }),
  ]);
  assert.equal(rows.map((row) => [row.kind, row.state, row.timerMs]), [
    ['feedback', 'completed', undefined],
    ['timer', 'completed', 50],
  ]);
});

test('the axis spans the run, or more when a bar starts before it', () => {
  nextId = 1;
  const rows = buildTimeline([event(-5, 'step_scheduled', { kind: 'step' }, 's'), event(-4, 'step_started', { attempt: 1 }, 's')]);
  assert.equal(timelineSpan(rows, T0, T0 + 100), { start: T0 - 5, end: T0 + 100 });
  assert.equal(timelineSpan([], T0, T0), { start: T0, end: T0 + 1 }, 'never an empty span');
});

test.run();
