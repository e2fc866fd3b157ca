import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { toResultV2, toResultLegacy } from '../../core/results/toResult.js';
import { toStatusView } from '../../core/results/statusView.js';
import type { RunDescription, RunOutcome } from '../../core/domain/run.js';

const run = (status: RunDescription['status']): RunDescription => ({
  workflowId: 'wf-1',
  runId: '6b0f6f43-4b1f-4d55-9a35-4c7bd7c8c001',
  workflowName: 'demo',
  catalog: 'main',
  status,
  startedAt: new Date('2026-01-01T00:00:00Z'),
  closedAt: new Date('2026-01-01T00:00:01Z'),
  firstRunId: '6b0f6f43-4b1f-4d55-9a35-4c7bd7c8c001',
});

const V2_KEYS = ['error', 'input', 'output', 'runId', 'status', 'trace', 'v', 'workflowId'];
const LEGACY_KEYS = ['error', 'errorDetails', 'input', 'output', 'runId', 'status', 'trace', 'workflowId'];

test('a completed run maps to v2 with exactly its documented keys and no error', () => {
  const outcome: RunOutcome = { run: run('completed'), output: { ok: true }, failure: null };
  const result = toResultV2({ outcome, input: { a: 1 }, trace: { local: '/t/x.json' } });
  assert.equal(Object.keys(result).sort(), V2_KEYS);
  assert.equal(result, {
    v: '2', workflowId: 'wf-1', runId: run('completed').runId, status: 'completed',
    input: { a: 1 }, output: { ok: true }, trace: { local: '/t/x.json' }, error: null,
  });
});

test('a step failure keeps the original class name and the activity type in v2 and legacy', () => {
  const failure = { name: 'InvoiceRejectedError', message: 'no', activityType: 'demo#check', retryable: false,
    cause: { name: 'HttpError', message: 'HTTP 402' } };
  const outcome: RunOutcome = { run: run('failed'), output: 'ignored', failure };
  const v2 = toResultV2({ outcome, input: null, trace: {} });
  assert.equal(v2.error, failure);
  assert.is(v2.output, null);
  assert.equal(v2.trace, {});
  const legacy = toResultLegacy({ outcome, input: null, trace: {} });
  assert.equal(Object.keys(legacy).sort(), LEGACY_KEYS);
  assert.is(legacy.error, 'no');
  assert.equal(legacy.trace, { destinations: {} });
  assert.equal(legacy.errorDetails, {
    message: 'no', name: 'InvoiceRejectedError', retryable: false, activityId: 'demo#check',
    cause: { name: 'HttpError', message: 'HTTP 402' },
  });
});

test('runs that ended without a failure of their own still report how they ended (v2), legacy only for failed', () => {
  for (const [status, name] of [['cancelled', 'WorkflowCancelledError'], ['terminated', 'WorkflowTerminatedError'], ['timed_out', 'WorkflowTimedOutError']] as const) {
    const outcome: RunOutcome = { run: run(status), output: null, failure: null };
    assert.is(toResultV2({ outcome, input: null, trace: {} }).error?.name, name);
    const legacy = toResultLegacy({ outcome, input: null, trace: {} });
    assert.is(legacy.error, null);
    assert.is(legacy.errorDetails, null);
  }
});

test('continued_as_new has no output and no error', () => {
  const outcome: RunOutcome = { run: run('continued_as_new'), output: { n: 1 }, failure: null };
  const result = toResultV2({ outcome, input: { n: 2 }, trace: {} });
  assert.is(result.output, null);
  assert.is(result.error, null);
});

test('a result of an open run is a programming error', () => {
  assert.throws(() => toResultV2({ outcome: { run: run('running'), output: null, failure: null }, input: null, trace: {} }), /closed run/);
});

test('status view: times as ISO 8601 whichever Date object carries them, past the few it keeps formatted; optional keys only when set', () => {
  const views = Array.from({ length: 200 }, (_, index) => {
    const startedAt = new Date(Date.UTC(2026, 0, 1) + index * 1000);
    return [startedAt.toISOString(), toStatusView({ ...run('running'), startedAt: new Date(startedAt.getTime()), closedAt: null })] as const;
  });
  for (const [expected, view] of views) assert.is(view.startedAt, expected);
  const closed = toStatusView({ ...run('completed'), startedBy: 'ops', rerunOf: { workflowId: 'wf-0', runId: 'r-0' } });
  assert.equal(closed, {
    workflowId: 'wf-1',
    runId: '6b0f6f43-4b1f-4d55-9a35-4c7bd7c8c001',
    workflowName: 'demo',
    catalog: 'main',
    status: 'completed',
    startedAt: '2026-01-01T00:00:00.000Z',
    closedAt: '2026-01-01T00:00:01.000Z',
    rerunOf: { workflowId: 'wf-0', runId: 'r-0' },
    startedBy: 'ops',
  });
  assert.equal(Object.keys(toStatusView(run('failed'))), ['workflowId', 'runId', 'workflowName', 'catalog', 'status', 'startedAt', 'closedAt']);
});

test.run();
