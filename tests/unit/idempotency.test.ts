import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ConfigError, parseConfig } from '../../composition/config.js';
import { sha256Digest } from '../../adapters/system/index.js';
import { canonicalJson } from '../../core/idempotency/fingerprint.js';
import { IdempotencyKeyReusedError } from '../../core/domain/errors.js';
import { LocalAnswers } from '../../core/idempotency/localAnswers.js';
import { createKeyedControl } from '../../core/idempotency/keyedControl.js';
import type { RequestIdempotency } from '../../core/domain/idempotency.js';
import type { ControlKeys } from '../../ports/engine.js';
import { noMetrics } from '../../ports/metrics.js';
import { ManualClock } from '../support/manualClock.js';

/** What the promise rejects with; fails the test when it resolves. */
async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
}

test('canonicalJson: key order does not matter, at any depth; arrays keep their order; undefined fields vanish', () => {
  assert.is(canonicalJson({ b: 1, a: { d: [2, { y: 1, x: 0 }], c: null } }), canonicalJson({ a: { c: null, d: [2, { x: 0, y: 1 }] }, b: 1 }));
  assert.is(canonicalJson({ a: 1, b: undefined }), '{"a":1}');
  assert.is.not(canonicalJson([1, 2]), canonicalJson([2, 1]));
  assert.is.not(canonicalJson({ a: '1' }), canonicalJson({ a: 1 }));
  assert.is(canonicalJson('x'), '"x"');
});

test('sha256Digest: the same parts, the same version 8 UUID; parts are not ambiguous when joined', () => {
  const id = sha256Digest.uuidOf(['key', 'abc']);
  assert.match(id, /^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  assert.is(sha256Digest.uuidOf(['key', 'abc']), id);
  assert.is.not(sha256Digest.uuidOf(['keya', 'bc']), id);
  assert.is.not(sha256Digest.uuidOf(['key', 'abd']), id);
});

test('LocalAnswers: a duplicate in flight joins the first call; after it, the stored answer until it expires', async () => {
  const clock = new ManualClock();
  const answers = new LocalAnswers(clock, 1000);
  let calls = 0;
  let release!: (value: string) => void;
  const produce = () => {
    calls += 1;
    return new Promise<string>((resolve) => (release = resolve));
  };
  const first = answers.answer('k', 'f', produce);
  const duplicate = answers.answer('k', 'f', produce);
  release('done');
  const [a, b] = await Promise.all([first, duplicate]);
  assert.is(calls, 1, 'produced once');
  assert.equal(a, b);
  assert.is(a.answer, 'done');
  assert.is(a.expiresAt.getTime(), clock.now() + 1000);
  await clock.advance(999);
  assert.is((await answers.answer('k', 'f', async () => 'again')).answer, 'done', 'still stored');
  await clock.advance(1);
  assert.is((await answers.answer('k', 'f', async () => 'again')).answer, 'again', 'expired: produced anew');
});

test('LocalAnswers: another fingerprint is IdempotencyKeyReusedError, in flight or answered; nothing is produced', async () => {
  const answers = new LocalAnswers(new ManualClock(), 1000);
  let release!: () => void;
  const first = answers.answer('k', 'f', () => new Promise<string>((resolve) => (release = () => resolve('x'))));
  let produced = false;
  assert.instance(await rejection(answers.answer('k', 'other', async () => (produced = true))), IdempotencyKeyReusedError);
  release();
  await first;
  assert.instance(await rejection(answers.answer('k', 'other', async () => (produced = true))), IdempotencyKeyReusedError);
  assert.is(produced, false);
});

test('LocalAnswers: a failure is not stored: joined duplicates share it, the next retry tries again', async () => {
  const answers = new LocalAnswers(new ManualClock(), 1000);
  let reject!: (error: Error) => void;
  const first = answers.answer('k', 'f', () => new Promise<string>((_resolve, fail) => (reject = fail)));
  const duplicate = answers.answer('k', 'f', async () => 'never');
  reject(new Error('engine down'));
  assert.match(String(await rejection(first)), /engine down/);
  assert.match(String(await rejection(duplicate)), /engine down/);
  assert.is(answers.size, 0);
  assert.is((await answers.answer('k', 'f', async () => 'ok')).answer, 'ok');
});

test('LocalAnswers: bounded: past the cap the oldest answers go first; expired ones are dropped as new keys come', async () => {
  const clock = new ManualClock();
  const answers = new LocalAnswers(clock, 1000, 3);
  for (const key of ['a', 'b', 'c', 'd']) await answers.answer(key, 'f', async () => key);
  assert.is(answers.size, 3);
  assert.is((await answers.answer('a', 'f', async () => 'a again')).answer, 'a again', 'the oldest was forgotten');
  await clock.advance(1000);
  await answers.answer('e', 'f', async () => 'e');
  assert.is(answers.size, 1, 'only the new key is left');
});

test('IDEMPOTENCY_RETENTION_SECONDS: default one day; a positive integer', () => {
  assert.is(parseConfig({}).idempotencyRetentionSeconds, 86_400);
  assert.is(parseConfig({ IDEMPOTENCY_RETENTION_SECONDS: '60' }).idempotencyRetentionSeconds, 60);
  assert.throws(() => parseConfig({ IDEMPOTENCY_RETENTION_SECONDS: '0' }), (error: unknown) =>
    error instanceof ConfigError && error.problems.some((line) => line.startsWith('IDEMPOTENCY_RETENTION_SECONDS:')));
});


/** A keyed control over an engine that declares `controlKeys`, and what each call handed that engine. */
function keyedControlOver(controlKeys: ControlKeys) {
  const clock = new ManualClock();
  const handed: (RequestIdempotency | undefined)[] = [];
  const keyed = createKeyedControl({ engine: { controlKeys }, digest: sha256Digest, clock, idempotencyRetentionMs: 1000 });
  const terminate = (reason: string, idempotencyKey?: string) =>
    keyed(idempotencyKey === undefined ? {} : { idempotencyKey }, ['terminate', 'wf', reason], async (idempotency) => {
      handed.push(idempotency);
      return `terminated #${handed.length}`;
    });
  return { clock, handed, terminate };
}

test('keyed control: without a key every call is carried out, with no expiry and nothing handed to the engine', async () => {
  for (const controlKeys of ['kept-by-engine', 'kept-by-api-process'] as const) {
    const { handed, terminate } = keyedControlOver(controlKeys);
    assert.equal(await terminate('r'), { answer: 'terminated #1' }, controlKeys);
    assert.equal(await terminate('r'), { answer: 'terminated #2' }, controlKeys);
    assert.equal(handed, [undefined, undefined], controlKeys);
  }
});

test('keyed control: an engine that keeps keys is handed their digests; one that keeps none is handed nothing; this process answers the retry either way', async () => {
  const keeping = keyedControlOver('kept-by-engine');
  const first = await keeping.terminate('r', 'key-1');
  assert.equal(first, { answer: 'terminated #1', expiresAt: new Date(keeping.clock.now() + 1000) });
  assert.equal(await keeping.terminate('r', 'key-1'), first, 'the retry gets the first answer');
  assert.equal(keeping.handed.map((handed) => handed && { ...handed, recognised: typeof handed.recognised }), [
    {
      key: sha256Digest.uuidOf(['idempotency-key', 'key-1']),
      fingerprint: sha256Digest.uuidOf(['idempotency-fingerprint', canonicalJson(['terminate', 'wf', 'r'])]),
      retentionMs: 1000,
      requestedAt: new Date(keeping.clock.now()),
      recognised: 'function',
    },
  ]);
  assert.instance(await rejection(keeping.terminate('another reason', 'key-1')), IdempotencyKeyReusedError);

  const notKeeping = keyedControlOver('kept-by-api-process');
  const answered = await notKeeping.terminate('r', 'key-1');
  assert.equal(answered, { answer: 'terminated #1', expiresAt: new Date(notKeeping.clock.now() + 1000) });
  assert.equal(await notKeeping.terminate('r', 'key-1'), answered, 'the retry gets the first answer');
  assert.equal(notKeeping.handed, [undefined]);
  assert.instance(await rejection(notKeeping.terminate('another reason', 'key-1')), IdempotencyKeyReusedError);
});

test('keyed control: an engine that recognises an earlier request (through another replica) makes the expiry count from that request', async () => {
  const clock = new ManualClock();
  const keyed = createKeyedControl({ engine: { controlKeys: 'kept-by-engine' }, digest: sha256Digest, clock, idempotencyRetentionMs: 1000 });
  const earlier = new Date(clock.now() - 400);
  let engineRecognises = true;
  const terminate = () =>
    keyed({ idempotencyKey: 'key-1' }, ['terminate', 'wf', 'r'], async (idempotency) => {
      await clock.advance(50);
      if (engineRecognises) idempotency!.recognised(earlier);
      return engineRecognises ? 'terminated before' : 'terminated now';
    });
  const answered = await terminate();
  assert.equal(answered, { answer: 'terminated before', expiresAt: new Date(earlier.getTime() + 1000) });
  assert.equal(await terminate(), answered, 'kept for this process too');
  // Past the earlier request's expiry (but not this process's answer's plus the retention): the key is new again.
  await clock.advance(600);
  engineRecognises = false;
  assert.equal(await terminate(), { answer: 'terminated now', expiresAt: new Date(clock.now() - 50 + 1000) });
});

test('keyed control: idempotency hits count every answer from the key: this process\'s copy, and an earlier request the engine recognised', async () => {
  const clock = new ManualClock();
  const hits: string[] = [];
  const metrics = { ...noMetrics, idempotencyHit: (operation: string) => hits.push(operation) };
  const keyed = createKeyedControl({ engine: { controlKeys: 'kept-by-engine' }, digest: sha256Digest, clock, idempotencyRetentionMs: 1000, metrics });
  const reset = (key: string, engineRecognises: boolean | 'itself') =>
    keyed({ idempotencyKey: key }, ['reset', 'wf', 'step'], async (idempotency) => {
      if (engineRecognises === 'itself') idempotency!.recognised(idempotency!.requestedAt);
      else if (engineRecognises) idempotency!.recognised(new Date(clock.now() - 100));
      return 'reset';
    });
  await reset('fresh', false);
  assert.equal(hits, [], 'a request carried out for the first time is no hit');
  await reset('fresh', false);
  assert.equal(hits, ['reset'], "this process's stored answer");
  await reset('sent-to-another-replica-first', true);
  assert.equal(hits, ['reset', 'reset'], 'the engine recognised the earlier request: answered from the key too');
  // Temporal reads the key's record back after sending its own signal, and finds this request's.
  await reset('read-back-after-sending', 'itself');
  assert.equal(hits, ['reset', 'reset'], 'the engine recognised this very request: no hit');
});

test.run();
