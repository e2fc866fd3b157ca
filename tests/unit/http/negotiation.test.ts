import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { negotiate, parseAccept } from '../../../adapters/http/negotiation.js';

const OFFERED = ['application/json', 'text/event-stream'] as const;
const choose = (accept: string | string[] | undefined) => negotiate(accept === undefined ? {} : { accept }, OFFERED);

test('parseAccept: ranges with their quality, lower-cased; q ends the media type parameters', () => {
  assert.equal(parseAccept('Text/Event-Stream;charset=utf-8;q=0.5;level=1, */*;q=0.1'), [
    { type: 'text', subtype: 'event-stream', quality: 0.5 },
    { type: '*', subtype: '*', quality: 0.1 },
  ]);
  assert.equal(parseAccept(' application/json ; Q=1.000 '), [{ type: 'application', subtype: 'json', quality: 1 }]);
});

test('parseAccept: a comma inside a quoted parameter does not split a range', () => {
  assert.equal(parseAccept('text/plain;note="a,b\\"c";q=0.3, application/json'), [
    { type: 'text', subtype: 'plain', quality: 0.3 },
    { type: 'application', subtype: 'json', quality: 1 },
  ]);
});

test('parseAccept: what no server could honour is left out (not type/subtype, a quality that is not a qvalue)', () => {
  for (const bad of ['text', '*/json', 'a/b/c', 'text/html;q=2', 'text/html;q=0.1234', 'text/html;q=x', 'text/html;q=-1', '']) {
    assert.equal(parseAccept(bad), [], bad);
  }
});

test('the higher quality wins, from the most specific range that matches each type', () => {
  assert.is(choose('application/json, text/event-stream;q=0.1'), 'application/json');
  assert.is(choose('application/json;q=0.1, text/event-stream'), 'text/event-stream');
  assert.is(choose('text/*;q=0.9, application/*;q=0.5'), 'text/event-stream');
  assert.is(choose('text/event-stream;q=0.2, text/*;q=0.9, application/json;q=0.5'), 'application/json', 'the exact range counts, not text/*');
  assert.is(choose('*/*;q=0.1, text/event-stream;q=0.2'), 'text/event-stream');
});

test('equal quality: the default, unless the client named the other type itself', () => {
  assert.is(choose('*/*'), 'application/json');
  assert.is(choose('text/*, application/*'), 'application/json');
  assert.is(choose('text/event-stream, application/json'), 'text/event-stream');
  assert.is(choose('application/json, text/event-stream'), 'text/event-stream', 'the order of the ranges does not matter');
});

test('nothing acceptable, or no Accept: the default (the API answers rather than refuse with 406)', () => {
  assert.is(choose(undefined), 'application/json');
  assert.is(choose('image/png'), 'application/json');
  assert.is(choose('text/event-stream;q=0, application/json;q=0'), 'application/json');
  assert.is(choose('garbage'), 'application/json');
});

test.run();
