import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { defaultPayloadConverter } from '@temporalio/client';
import { IDEMPOTENCY_MEMO_KEY, idempotencyMemo, idempotencyOf } from '../../../adapters/temporal/engine/idempotencyMemo.js';
import { keyPayload } from '../../../adapters/temporal/engine/requestKeys.js';
import { decodeIfPossible } from '../../../adapters/temporal/engine/values.js';

const record = { key: 'k', fingerprint: 'f', requestId: 'r' };

test('a run memo written for an Idempotency-Key reads back as the same record', () => {
  const memo = idempotencyMemo(record);
  const fields = { [IDEMPOTENCY_MEMO_KEY]: defaultPayloadConverter.toPayload(memo[IDEMPOTENCY_MEMO_KEY]) };
  assert.equal(idempotencyOf(fields), record);
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

test('the key of a feedback or terminate is recorded as digests only', () => {
  assert.equal(decodeIfPossible(keyPayload({ key: 'k', fingerprint: 'f' })), { key: 'k', fingerprint: 'f' });
});

test.run();
