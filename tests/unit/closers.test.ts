import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Closers } from '../../composition/closers.js';

test('closers run once each, the last pushed first, every one even after a failure, failures thrown together', async () => {
  const closers = new Closers();
  const closed: string[] = [];
  closers.push('first', () => void closed.push('first'));
  closers.push('second', () => {
    closed.push('second');
    throw new Error('second broke');
  });
  closers.push('third', async () => {
    closed.push('third');
    throw new Error('third broke');
  });
  const failure = await closers.close(1000).then(() => undefined, (error: unknown) => error);
  assert.equal(closed, ['third', 'second', 'first']);
  assert.instance(failure, AggregateError);
  assert.match((failure as AggregateError).message, /third: third broke; second: second broke/);
  await closers.close(1000).catch(() => undefined);
  assert.equal(closed, ['third', 'second', 'first'], 'a second close runs nothing again');
  assert.throws(() => closers.push('late', () => undefined), /closing has begun/);
});

test('a rollback closes what started and throws the start\'s own error', async () => {
  const closers = new Closers();
  let remaining: number | undefined;
  closers.push('store', (remainingMs) => void (remaining = remainingMs));
  const cause = new Error('port in use');
  const thrown = await closers.rollBack(cause).catch((error: unknown) => error);
  assert.is(thrown, cause);
  assert.is(remaining, 0);
});

test.run();
