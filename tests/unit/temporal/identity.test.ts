import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { defaultPayloadConverter } from '@temporalio/common';
import { HistoryMapper } from '../../../adapters/temporal/engine/historyMapper.js';
import { keyIdOfIdentity, requestIdentity } from '../../../adapters/temporal/engine/identity.js';
import { parseResetReason, resetReasonWithStep, withoutKeyRecord } from '../../../adapters/temporal/engine/resetReason.js';
import { STARTED_BY_MEMO_KEY } from '../../../adapters/temporal/engine/startedByMemo.js';
import { payloads, rawEvent } from './protoFixtures.js';

/** Who did what on Temporal (docs/security.md): a key's id in the identity of its requests, and back in the history. */

test("a key's requests carry apikey:<id>; without a key the client's own identity, which names no key", () => {
  assert.is(requestIdentity('ci', '123@host'), 'apikey:ci');
  assert.is(requestIdentity(undefined, '123@host'), '123@host');
  assert.is(requestIdentity(undefined, undefined), '');
  assert.is(keyIdOfIdentity('apikey:operator.on-call'), 'operator.on-call');
  for (const other of ['123@host', 'history-service', 'apikey:', '', null, undefined]) assert.is(keyIdOfIdentity(other), undefined, String(other));
});

test("a reset's reason carries its key, as Temporal records its own service as the reset's identity", () => {
  const record = { key: 'k'.repeat(8), fingerprint: 'f'.repeat(8), at: '2026-11-28T00:00:00.000Z' };
  const keyed = resetReasonWithStep('fix (really)', 'add_one', record, 'ci');
  assert.is(keyed, `fix (really) (reset to after step "add_one" by apikey:ci) [flowgate idempotency ${record.key} ${record.fingerprint} ${record.at}]`);
  assert.equal(parseResetReason(keyed), { reason: 'fix (really)', stepName: 'add_one', record, keyId: 'ci' });
  assert.equal(parseResetReason(resetReasonWithStep('why', 'add_one', undefined, 'ops')), { reason: 'why', stepName: 'add_one', keyId: 'ops' });
  assert.equal(parseResetReason(resetReasonWithStep('why', 'add_one')), { reason: 'why', stepName: 'add_one' });
  assert.is(withoutKeyRecord(keyed), 'fix (really) (reset to after step "add_one" by apikey:ci)');
});

test('the history names the key of a start, feedback, stop, terminate and reset, and no one else', () => {
  const memo = { fields: { [STARTED_BY_MEMO_KEY]: defaultPayloadConverter.toPayload('ci')! } };
  const events = [
    rawEvent(1, 'EVENT_TYPE_WORKFLOW_EXECUTION_STARTED', { workflowExecutionStartedEventAttributes: { workflowType: { name: 'w' }, taskQueue: { name: 'q' }, memo, identity: '1@host' } }),
    rawEvent(2, 'EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED', { workflowExecutionSignaledEventAttributes: { signalName: 'flowgate.feedback', input: payloads({ ok: 1 }), identity: 'apikey:ops' } }),
    rawEvent(3, 'EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED', { workflowExecutionSignaledEventAttributes: { signalName: 'flowgate.feedback', input: payloads({ ok: 2 }), identity: '1@host' } }),
    rawEvent(4, 'EVENT_TYPE_WORKFLOW_EXECUTION_CANCEL_REQUESTED', { workflowExecutionCancelRequestedEventAttributes: { identity: 'apikey:ops' } }),
    rawEvent(5, 'EVENT_TYPE_WORKFLOW_TASK_FAILED', {
      workflowTaskFailedEventAttributes: { cause: 'WORKFLOW_TASK_FAILED_CAUSE_RESET_WORKFLOW', failure: { message: resetReasonWithStep('why', 'a', undefined, 'ops') }, baseRunId: 'b', identity: 'history-service' },
    }),
    rawEvent(6, 'EVENT_TYPE_WORKFLOW_EXECUTION_TERMINATED', { workflowExecutionTerminatedEventAttributes: { reason: 'stop it', identity: 'apikey:ops' } }),
  ];
  const mapper = new HistoryMapper();
  const mapped = events.flatMap((event) => mapper.map(event) ?? []);
  assert.equal(
    mapped.map((event) => [event.type, event.attributes.identity]),
    [
      ['workflow_started', 'ci'],
      ['signal_received', 'ops'],
      ['signal_received', undefined],
      ['workflow_cancel_requested', 'ops'],
      ['workflow_reset', 'ops'],
      ['workflow_terminated', 'ops'],
    ],
  );
  assert.not.ok('identity' in mapped[2]!.attributes, 'a signal without a key names no one');
});

test("a continued run's start names no key: the workflow started it", () => {
  const memo = { fields: { [STARTED_BY_MEMO_KEY]: defaultPayloadConverter.toPayload('ci')! } };
  const started = rawEvent(1, 'EVENT_TYPE_WORKFLOW_EXECUTION_STARTED', {
    workflowExecutionStartedEventAttributes: { workflowType: { name: 'w' }, taskQueue: { name: 'q' }, memo, continuedExecutionRunId: 'previous' },
  });
  const [event] = [new HistoryMapper().map(started)].flat();
  assert.not.ok(event && 'identity' in event.attributes);
});

test.run();
