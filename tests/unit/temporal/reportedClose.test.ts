// A completed run's result (sandbox/resultTraceReport.ts) and a failed run's detail (sandbox/runOutcome.ts) carry the
// run's trace location, from which the API builds the closed run's outcome without describing it
// (engine/reportedClose.ts): the two ends, through real closing events.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { defaultFailureConverter, defaultPayloadConverter, JsonPayloadConverter, RawValue, type PayloadConverter } from '@temporalio/common';
import { reportedCloseOutcome } from '../../../adapters/temporal/engine/reportedClose.js';
import { RESULT_TRACE_METADATA_KEY, type TraceLocation } from '../../../adapters/temporal/protocol.js';
import { resultReportingTrace } from '../../../adapters/temporal/sandbox/resultTraceReport.js';
import { runFailure } from '../../../adapters/temporal/sandbox/runOutcome.js';
import type { RunDescription } from '../../../core/domain/run.js';
import { eventTime, payloads, rawEvent } from './protoFixtures.js';

const started: RunDescription = {
  workflowId: 'order-7',
  runId: 'run-1',
  workflowName: 'echo',
  catalog: 'main',
  status: 'running',
  startedAt: new Date('2026-01-01T00:00:00.500Z'),
  closedAt: null,
  firstRunId: 'run-1',
  startedBy: 'ci-key',
};
const location: TraceLocation = { localPath: '/srv/traces/echo/2026-01-01T00:00:00.123Z_order-7_run-1.json', startedAt: '2026-01-01T00:00:00.123Z' };

/** The closing event a worker's completion makes of what the workflow returned (its payload as the converter gives it). */
function completedWith(returned: unknown) {
  const result = { payloads: [defaultPayloadConverter.toPayload(returned)!] };
  return rawEvent(12, 'EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED', { workflowExecutionCompletedEventAttributes: { result } });
}

test('the output goes out as the default converter encodes it, with the location beside it in the metadata', () => {
  const returned = resultReportingTrace({ message: 'hi' }, location);
  assert.instance(returned, RawValue);
  const payload = defaultPayloadConverter.toPayload(returned)!;
  assert.equal(defaultPayloadConverter.fromPayload(payload), { message: 'hi' }, 'any client decodes the output as before');
  assert.equal(JSON.parse(new TextDecoder().decode(payload.metadata![RESULT_TRACE_METADATA_KEY])), location);
});

test('without a location (the worker did not answer) the output is returned as it is', () => {
  const output = { message: 'hi' };
  assert.is(resultReportingTrace(output, undefined), output);
});

test('a converter that would encode the RawValue itself (another copy of @temporalio/common) gets the output as it is', () => {
  // What a second copy's composite converter does with this copy's RawValue: its instanceof fails, JSON takes it.
  const otherCopy = new JsonPayloadConverter() as unknown as PayloadConverter;
  const output = { message: 'hi' };
  assert.is(resultReportingTrace(output, location, otherCopy), output);
});

test('a completed run\'s outcome from its closing event: Temporal\'s start time, the close time, the reported path', () => {
  const outcome = reportedCloseOutcome(started, completedWith(resultReportingTrace({ message: 'hi' }, location)));
  assert.equal(outcome, {
    run: { ...started, status: 'completed', startedAt: new Date(location.startedAt), closedAt: new Date(eventTime(12)), localTracePath: location.localPath },
    output: { message: 'hi' },
    failure: null,
  });
});

test('an output of undefined (a workflow returning nothing) is reported too', () => {
  const outcome = reportedCloseOutcome(started, completedWith(resultReportingTrace(undefined, location)));
  assert.equal([outcome?.run.status, outcome?.output, outcome?.run.localTracePath], ['completed', undefined, location.localPath]);
});

test('no outcome without the report, or with one that does not read: the caller describes the run instead', () => {
  assert.is(reportedCloseOutcome(started, completedWith({ message: 'from a worker before the report' })), undefined);
  const withMetadata = (bytes: Uint8Array) => {
    const payload = defaultPayloadConverter.toPayload({ message: 'hi' })!;
    payload.metadata = { ...payload.metadata, [RESULT_TRACE_METADATA_KEY]: bytes };
    return rawEvent(12, 'EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED', { workflowExecutionCompletedEventAttributes: { result: { payloads: [payload] } } });
  };
  const utf8 = (text: string) => new TextEncoder().encode(text);
  for (const bad of ['not json', 'null', '{"localPath":"/t.json"}', '{"localPath":"","startedAt":"2026-01-01T00:00:00.000Z"}', '{"localPath":"/t.json","startedAt":"yesterday"}']) {
    assert.is(reportedCloseOutcome(started, withMetadata(utf8(bad))), undefined, bad);
  }
});

/** The closing event of a run that failed with `thrown` (as the workflow throws it), through the failure converter. */
function failedWith(thrown: Error) {
  const failure = defaultFailureConverter.errorToFailure(thrown, defaultPayloadConverter);
  return rawEvent(12, 'EVENT_TYPE_WORKFLOW_EXECUTION_FAILED', { workflowExecutionFailedEventAttributes: { failure } });
}

test('a failed run\'s outcome from its closing event: the location in the failure\'s detail, the failure as it is read', () => {
  const failure = { name: 'RangeError', message: 'gave up' };
  const outcome = reportedCloseOutcome(started, failedWith(runFailure(failure, location)));
  assert.equal(outcome, {
    run: { ...started, status: 'failed', startedAt: new Date(location.startedAt), closedAt: new Date(eventTime(12)), localTracePath: location.localPath },
    output: undefined,
    failure: { ...failure },
  });
  assert.is(reportedCloseOutcome(started, failedWith(runFailure(failure))), undefined, 'a failure without the location');
  assert.is(reportedCloseOutcome(started, failedWith(new Error('not flowgate\'s'))), undefined, 'a failure of another kind');
});

test('no outcome for any other close: cancelled, terminated, continued as new', () => {
  const cancelled = rawEvent(12, 'EVENT_TYPE_WORKFLOW_EXECUTION_CANCELED', { workflowExecutionCanceledEventAttributes: {} });
  assert.is(reportedCloseOutcome(started, cancelled), undefined);
  const terminated = rawEvent(12, 'EVENT_TYPE_WORKFLOW_EXECUTION_TERMINATED', { workflowExecutionTerminatedEventAttributes: { reason: 'r' } });
  assert.is(reportedCloseOutcome(started, terminated), undefined);
  const continued = rawEvent(12, 'EVENT_TYPE_WORKFLOW_EXECUTION_CONTINUED_AS_NEW', { workflowExecutionContinuedAsNewEventAttributes: { newExecutionRunId: 'run-2', input: payloads({}) } });
  assert.is(reportedCloseOutcome(started, continued), undefined);
});

test.run();
