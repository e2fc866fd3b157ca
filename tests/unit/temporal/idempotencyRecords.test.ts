import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { defaultPayloadConverter } from '@temporalio/client';
import { IDEMPOTENCY_MEMO_KEY, idempotencyMemo, idempotencyOf } from '../../../adapters/temporal/engine/idempotencyMemo.js';
import { alreadyDone, keyPayload } from '../../../adapters/temporal/engine/requestKeys.js';
import { parseResetReason, resetReasonWithStep, withoutKeyRecord } from '../../../adapters/temporal/engine/resetReason.js';
import { IdempotencyKeyReusedError } from '../../../core/domain/errors.js';
import type { RequestIdempotency } from '../../../core/domain/idempotency.js';
import { decodeIfPossible } from '../../../adapters/temporal/engine/values.js';

const record = { key: 'k', fingerprint: 'f', requestId: 'r' };

test('a run memo written for an Idempotency-Key reads back as the same record', () => {
  const memo = idempotencyMemo(record);
  const fields = { [IDEMPOTENCY_MEMO_KEY]: defaultPayloadConverter.toPayload(memo[IDEMPOTENCY_MEMO_KEY]) };
  assert.equal(idempotencyOf(fields), record);
});

test("the start call's id reads back too, so a keyed start can tell its own run from one a concurrent duplicate made", () => {
  const ofCall = { ...record, startCallId: 'call-1' };
  const memo = idempotencyMemo(ofCall);
  assert.equal(idempotencyOf({ [IDEMPOTENCY_MEMO_KEY]: defaultPayloadConverter.toPayload(memo[IDEMPOTENCY_MEMO_KEY]) }), ofCall);
});

test('no memo, a memo of another shape, or one that does not decode: no record', () => {
  assert.is(idempotencyOf(undefined), undefined);
  assert.is(idempotencyOf({}), undefined);
  assert.is(idempotencyOf({ [IDEMPOTENCY_MEMO_KEY]: defaultPayloadConverter.toPayload({ key: 'k', fingerprint: 1 }) }), undefined);
  assert.is(idempotencyOf({ [IDEMPOTENCY_MEMO_KEY]: defaultPayloadConverter.toPayload('text') }), undefined);
  const undecodable = { metadata: { encoding: new TextEncoder().encode('binary/encrypted') }, data: new Uint8Array([1, 2]) };
  assert.is(idempotencyOf({ [IDEMPOTENCY_MEMO_KEY]: undecodable }), undefined);
  assert.is(decodeIfPossible(undecodable), undefined);
});

/** A keyed request as the core hands it to the engine, and the earlier request times the engine reported. */
function keyed(fingerprint = 'f', requestedAt = new Date('2026-11-26T10:00:00.000Z')) {
  const recognised: Date[] = [];
  const idempotency: RequestIdempotency = { key: 'k', fingerprint, retentionMs: 60_000, requestedAt, recognised: (at) => recognised.push(at) };
  return { idempotency, recognised };
}

test('the key of a feedback or terminate is recorded as digests and the time the request was taken', () => {
  assert.equal(decodeIfPossible(keyPayload(keyed().idempotency)), { key: 'k', fingerprint: 'f', at: '2026-11-26T10:00:00.000Z' });
});

test('a record of the same request is recognised with the first request time, which every replica answers the expiry from', () => {
  const first = new Date('2026-11-26T10:00:00.000Z');
  const retry = keyed('f', new Date('2026-11-26T10:00:30.000Z'));
  const eventTime = new Date('2026-11-26T10:00:00.200Z');
  assert.is(alreadyDone({ key: 'k', fingerprint: 'f', requestedAt: first }, eventTime, retry.idempotency, first.getTime() + 30_000), true);
  assert.equal(retry.recognised, [first]);
  // A record written before the time was kept counts from its event.
  const older = keyed();
  assert.is(alreadyDone({ key: 'k', fingerprint: 'f' }, eventTime, older.idempotency, eventTime.getTime() + 1), true);
  assert.equal(older.recognised, [eventTime]);
});

test('another key, an expired record or another request: not recognised, or IdempotencyKeyReusedError', () => {
  const first = new Date('2026-11-26T10:00:00.000Z');
  const { idempotency, recognised } = keyed();
  assert.is(alreadyDone(undefined, undefined, idempotency, first.getTime()), false);
  assert.is(alreadyDone({ key: 'other', fingerprint: 'f', requestedAt: first }, first, idempotency, first.getTime()), false);
  assert.is(alreadyDone({ key: 'k', fingerprint: 'f', requestedAt: first }, first, idempotency, first.getTime() + 60_000), false, 'expired');
  assert.throws(() => alreadyDone({ key: 'k', fingerprint: 'other', requestedAt: first }, first, idempotency, first.getTime()), (error: unknown) => error instanceof IdempotencyKeyReusedError);
  assert.equal(recognised, []);
});

test('a keyed reset carries its record in the reason, after the step; the reason reads back as the client gave it', () => {
  const record = { key: '0b7e6c1a-0000-4000-8000-000000000001', fingerprint: '5d8a0c1a-0000-4000-8000-000000000002', at: '2026-11-26T10:00:00.000Z' };
  const reason = resetReasonWithStep('fix (really)', 'add_one', record);
  assert.is(reason, `fix (really) (reset to after step "add_one") [flowgate idempotency ${record.key} ${record.fingerprint} ${record.at}]`);
  assert.equal(parseResetReason(reason), { reason: 'fix (really)', stepName: 'add_one', record });
  assert.equal(parseResetReason(resetReasonWithStep('why', 'add_one')), { reason: 'why', stepName: 'add_one' });
  // A client's reason that imitates a record is only a reason: the step's suffix always comes after it.
  const imitation = resetReasonWithStep(`x (reset to after step "a") [flowgate idempotency ${record.key} ${record.fingerprint} ${record.at}]`, 'b');
  assert.is(parseResetReason(imitation).record, undefined);
  assert.is(parseResetReason(imitation).stepName, 'b');
  // The run a keyed reset terminated shows the reset's reason without the record.
  assert.is(withoutKeyRecord(reason), 'fix (really) (reset to after step "add_one")');
  assert.is(withoutKeyRecord(imitation), imitation);
});

test.run();
