// The CLI's output, as pure functions of the API's answers (composition/cli/render).
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { FollowEvent, RunStatusView, TraceLog } from '../../../adapters/client/index.js';
import { applyFollowEvent, emptyFollowView, renderFollowView } from '../../../composition/cli/render/follow.js';
import { renderHistoryPage, renderResult, renderRunList, renderStatus } from '../../../composition/cli/render/runs.js';
import { duration, shortJson, table } from '../../../composition/cli/render/text.js';
import { bar, renderTraceTimeline } from '../../../composition/cli/render/trace.js';

const text = suite('render: text');

text('table pads every column but the last to its widest cell', () => {
  assert.is(table(['A', 'BB', 'C'], [['xxx', 'y', 'z'], ['1', '22222', '']]), 'A    BB     C\nxxx  y      z\n1    22222\n');
});

text('duration: milliseconds, seconds, minutes, hours; nonsense is -', () => {
  assert.equal([0, 999, 1000, 12_340, 65_000, 3_600_000 + 180_000, -1, NaN].map(duration), ['0ms', '999ms', '1.0s', '12.3s', '1m05s', '1h03m', '-', '-']);
});

text('shortJson cuts long values with an ellipsis', () => {
  assert.is(shortJson({ a: 1 }), '{"a":1}');
  assert.is(shortJson('x'.repeat(100), 10), `"${'x'.repeat(8)}…`);
});

text.run();

const runs = suite('render: results, status, run lists, history');

const RUN: RunStatusView = {
  workflowId: 'w1',
  runId: 'r1',
  workflowName: 'echo',
  catalog: 'main',
  status: 'completed',
  startedAt: '2026-01-01T00:00:00.000Z',
  closedAt: '2026-01-01T00:00:01.500Z',
};

runs('a completed result: the status line and the output; a failed one: the error and where', () => {
  const base = { v: '2' as const, workflowId: 'w1', runId: 'r1', input: {}, trace: null };
  assert.is(renderResult({ ...base, status: 'completed', output: { a: 1 }, error: null }), 'completed  w1  run r1\n{\n  "a": 1\n}\n');
  assert.is(
    renderResult({ ...base, status: 'failed', output: null, error: { name: 'E', message: 'no', activityType: 'w#s' } }),
    'failed  w1  run r1\nerror: E: no (in w#s)\n',
  );
  assert.is(renderResult({ ...base, status: 'terminated', output: null, error: null }), 'terminated  w1  run r1\n');
});

runs('status: aligned fields with the duration; an open run counts up to now', () => {
  assert.match(renderStatus(RUN), /^workflowId: +w1\nrunId: +r1\nworkflow: +echo\ncatalog: +main\nstatus: +completed\n.*\nclosedAt: +2026-01-01T00:00:01\.500Z\nduration: +1\.5s\n$/s);
  const open = { ...RUN, status: 'running' as const, closedAt: null };
  assert.match(renderStatus(open, Date.parse('2026-01-01T00:02:00Z')), /closedAt: +-\nduration: +2m00s so far\n$/);
});

runs('run list: a row per run and the next page token; none: a line saying so', () => {
  const out = renderRunList({ runs: [RUN], nextPageToken: 'tok' });
  assert.is(out.split('\n')[1], 'w1           r1      echo      completed  2026-01-01T00:00:00.000Z  1.5s');
  assert.match(out, /\nnext page: --page-token tok\n$/);
  assert.is(renderRunList({ runs: [], nextPageToken: null }), 'no runs\n');
  // A limited key's page can be empty with more after it: the token is still printed.
  assert.is(renderRunList({ runs: [], nextPageToken: 'T1' }), 'no runs on this page\nnext page: --page-token T1\n');
});

runs('history page: attempt and error pulled out of the attributes', () => {
  const out = renderHistoryPage({
    workflow: RUN,
    events: [{ eventId: 4, type: 'step_failed', time: '2026-01-01T00:00:01.000Z', stepName: 's', attributes: { attempt: 2, error: { name: 'E', message: 'bad' } } }],
    nextPageToken: null,
  });
  assert.is(out.split('\n')[2], '4   2026-01-01T00:00:01.000Z  step_failed  s     attempt 2  E: bad');
});

runs.run();

const follow = suite('render: the follow view');

const at = (seconds: number) => new Date(Date.parse('2026-01-01T00:00:00.000Z') + seconds * 1000).toISOString();
const history = (eventId: number, type: string, seconds: number, stepName?: string, attributes: Record<string, unknown> = {}): FollowEvent => ({
  event: 'history',
  id: String(eventId),
  data: { eventId, type, time: at(seconds), ...(stepName ? { stepName } : {}), attributes },
});

follow('steps go scheduled, running (with attempt and progress), completed; the run closes with done', () => {
  const events: FollowEvent[] = [
    { event: 'workflow', data: { ...RUN, status: 'running', closedAt: null } },
    history(1, 'workflow_started', 0),
    history(2, 'step_scheduled', 1, 'fetch'),
    history(3, 'step_started', 1, 'fetch', { attempt: 2 }),
    { event: 'progress', id: '3/2.1', data: { stepEventId: 2, stepName: 'fetch', attempt: 2, seq: 1, time: at(2), fields: { done: 3, of: 10 } } },
    history(4, 'step_scheduled', 1, 'parse'),
  ];
  const view = events.reduce(applyFollowEvent, emptyFollowView());
  const running = renderFollowView(view, Date.parse(at(5)));
  assert.is(
    running,
    [
      'w1  run r1  echo  running  5.0s',
      'STEP   STATE      ATTEMPT  DURATION  PROGRESS',
      'fetch  running    2        4.0s      {"done":3,"of":10}',
      'parse  scheduled  1        -',
      'last event: workflow_started',
      '',
    ].join('\n'),
  );
  const closed = [history(5, 'step_completed', 6, 'fetch', { attempt: 2 }), history(6, 'step_failed', 7, 'parse', { attempt: 1 }), history(7, 'workflow_failed', 8), { event: 'done', data: { status: 'failed' } } as FollowEvent].reduce(applyFollowEvent, view);
  const final = renderFollowView(closed, Date.parse(at(100)));
  assert.match(final, /^w1  run r1  echo  failed  8\.0s\n/);
  assert.match(final, /\nfetch  completed  2 +5\.0s +\{"done":3,"of":10\}\nparse  failed +1 +-?\S*\n$/);
  assert.is(view.steps.length, 2, 'the earlier view is untouched');
  assert.is(view.steps[0]!.state, 'running');
});

follow('two calls of one step: the later events go to the first open row', () => {
  const view = [history(2, 'step_scheduled', 0, 's'), history(3, 'step_scheduled', 0, 's'), history(4, 'step_completed', 1, 's', { attempt: 1 })].reduce(applyFollowEvent, emptyFollowView());
  assert.equal(view.steps.map((step) => step.state), ['completed', 'scheduled']);
});

follow('a run waiting for feedback says since when and how to send it; the reply ends the wait', () => {
  const started: FollowEvent[] = [
    { event: 'workflow', data: { ...RUN, workflowId: 'order 7', status: 'running', closedAt: null } },
    history(1, 'workflow_started', 0),
    history(2, 'step_scheduled', 1, 'charge'),
    history(3, 'step_started', 1, 'charge', { attempt: 1 }),
    history(4, 'step_completed', 2, 'charge', { attempt: 1 }),
    history(5, 'feedback_wait_started', 3, undefined, { timeoutMs: 600_000 }),
  ];
  const waiting = started.reduce(applyFollowEvent, emptyFollowView());
  assert.is(
    renderFollowView(waiting, Date.parse(at(65))).split('\n').slice(-2).join('\n'),
    "waiting for feedback since 2026-01-01T00:00:03.000Z (1m02s so far, time limit 10m00s); send it with: flowgate feedback 'order 7' --payload JSON\n",
  );
  const answered = [history(6, 'signal_received', 70, undefined, { signalName: 'feedback', payload: {} })].reduce(applyFollowEvent, waiting);
  assert.match(renderFollowView(answered, Date.parse(at(71))), /\nlast event: signal_received\n$/);
  assert.not.match(renderFollowView(answered, Date.parse(at(71))), /waiting for feedback/);
  const closed = [history(7, 'workflow_terminated', 80), { event: 'done', data: { status: 'terminated' } } as FollowEvent].reduce(applyFollowEvent, waiting);
  assert.not.match(renderFollowView(closed, Date.parse(at(81))), /waiting for feedback/, 'a closed run waits for nothing');
});

follow.run();

const trace = suite('render: the trace timeline');

trace('bar: placed by offset, sized by length, at least one block, within the width', () => {
  assert.is(bar(0, 50, 100, 10), '|█████     |');
  assert.is(bar(50, 50, 100, 10), '|     █████|');
  assert.is(bar(99, 0, 100, 10), '|         █|');
  assert.is(bar(0, 500, 100, 10), '|██████████|');
});

trace('a line per step with duration, cost, tokens and HTTP calls, and the totals', () => {
  const step = (name: string, from: number, to: number, aggregations?: { totalCost: number; httpCalls: number; tokens: number }) => ({
    name,
    kind: 'step' as const,
    input: null,
    output: null,
    error: null,
    startedAt: at(from),
    endedAt: at(to),
    attempt: 1,
    ...(aggregations ? { aggregations } : {}),
  });
  const log: TraceLog = {
    source: 'local',
    runId: 'r1',
    localPath: '/t/r1.json',
    data: {
      workflowId: 'w1',
      workflowName: 'echo',
      input: null,
      output: null,
      error: null,
      startedAt: at(0),
      closedAt: at(10),
      steps: [step('fetch', 0, 5, { totalCost: 0.0125, httpCalls: 2, tokens: 300 }), step('store', 5, 10)],
    },
  };
  const lines = renderTraceTimeline(log).trimEnd().split('\n');
  assert.is(lines[0], 'echo  w1  run r1  10.0s  closed');
  assert.match(lines[1]!, /^STEP +TIMELINE +DURATION +ATTEMPT +STATE +COST +TOKENS +HTTP$/);
  assert.is(lines[2], `fetch  |${'█'.repeat(15)}${' '.repeat(15)}|  5.0s      1        ok     0.0125  300     2`);
  assert.is(lines[3], `store  |${' '.repeat(15)}${'█'.repeat(15)}|  5.0s      1        ok     -       -       -`);
  assert.match(lines[4]!, /^total +10\.0s +0\.0125 +300 +2$/);
});

trace('the head line says how the run ended: cancelled, terminated and timed out are not failures', () => {
  const headOf = (error: { name: string; message: string } | null) =>
    renderTraceTimeline({
      source: 'local',
      runId: 'r1',
      localPath: '/t/r1.json',
      data: { workflowId: 'w1', workflowName: 'echo', input: null, output: null, error, startedAt: at(0), closedAt: at(2), steps: [] },
    }).split('\n')[0];
  assert.is(headOf({ name: 'WorkflowCancelledError', message: 'The workflow run was cancelled' }), 'echo  w1  run r1  2.0s  cancelled');
  assert.is(headOf({ name: 'WorkflowTerminatedError', message: 'by hand' }), 'echo  w1  run r1  2.0s  terminated: by hand');
  assert.is(headOf({ name: 'WorkflowTimedOutError', message: 'The run exceeded its run timeout of 150 ms' }), 'echo  w1  run r1  2.0s  timed out: The run exceeded its run timeout of 150 ms');
  assert.is(headOf({ name: 'TypeError', message: 'bad' }), 'echo  w1  run r1  2.0s  failed: TypeError: bad');
  assert.is(headOf(null), 'echo  w1  run r1  2.0s  closed');
});

trace('a trace this server cannot read says where it is', () => {
  assert.is(renderTraceTimeline({ source: 'local', runId: 'r1', localPath: '/elsewhere/r1.json' }), 'run r1: the trace is /elsewhere/r1.json on the host that wrote it (this server cannot read it)\n');
});

trace.run();
