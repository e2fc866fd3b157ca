import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { PageCursor } from '../../../ui/src/pageCursor.js';

test('walks forward through the pages the API hands out, back through the ones seen, and resets to the first', () => {
  const cursor = new PageCursor();
  assert.is(cursor.current, undefined);
  assert.not.ok(cursor.hasPrevious);
  assert.not.ok(cursor.forward(), 'no next page before the first answer');
  cursor.received('t2');
  assert.ok(cursor.hasNext);
  assert.ok(cursor.forward());
  assert.is(cursor.current, 't2');
  cursor.received('t3');
  assert.ok(cursor.forward());
  cursor.received(null);
  assert.not.ok(cursor.hasNext);
  assert.not.ok(cursor.forward(), 'the last page has no next');
  assert.ok(cursor.back());
  assert.is(cursor.current, 't2');
  assert.ok(cursor.back());
  assert.is(cursor.current, undefined);
  assert.not.ok(cursor.back(), 'the first page has none before it');
  cursor.received('t2');
  cursor.forward();
  cursor.reset();
  assert.is(cursor.current, undefined);
  assert.not.ok(cursor.hasPrevious);
  assert.not.ok(cursor.hasNext);
});

test.run();
