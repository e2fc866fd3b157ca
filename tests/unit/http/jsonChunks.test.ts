import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { jsonChunks, jsonLengthExceeds } from '../../../adapters/http/jsonChunks.js';

/** The chunked serialiser of large answers (adapters/http/jsonChunks.ts) must write exactly what JSON.stringify writes. */

const joined = (value: unknown, chunkChars: number) => [...jsonChunks(value, chunkChars)].join('');

const SAMPLES: [string, unknown][] = [
  ['primitives', [1, -0, 1e21, 1.5e-7, NaN, Infinity, -Infinity, true, false, null, '', 'a"b\\c\n\u0001\u2028']],
  ['nested', { a: { b: { c: [1, [2, [3, {}]], []] } }, d: 'x', e: [{}, { f: null }] }],
  ['skipped', { a: undefined, b: () => 1, c: Symbol('s'), d: 1, e: [undefined, () => 1, Symbol('t')] }],
  ['skipped first key', { a: undefined, b: 2 }],
  ['toJSON', { when: new Date(0), custom: { toJSON: (key: string) => `key:${key}` }, list: [{ toJSON: (key: string) => ({ at: key }) }] }],
  ['boxed', [new Number(3), new String('s'), new Boolean(false)]],
  ['sparse array', [1, , 3]], // eslint-disable-line no-sparse-arrays
  ['keys', { '1': 'one', b: 2, 'a"b': 3, '\ud800': 4, 0: 'zero' }],
  ['long strings', { text: `${'a'.repeat(9)}😀${'é'.repeat(13)}😀😀\ud800x\udc00${'z'.repeat(20)}` }],
  ['emoji at every boundary', ['😀'.repeat(40), `a${'😀'.repeat(40)}`]],
  ['map and set', { map: new Map([[1, 2]]), set: new Set([1]) }],
  ['top-level string', 'plain'],
  ['top-level number', 42],
];

for (const [name, value] of SAMPLES) {
  test(`as JSON.stringify, at any chunk size: ${name}`, () => {
    const expected = JSON.stringify(value);
    for (const chunkChars of [1, 2, 3, 7, 16, 1000]) assert.is(joined(value, chunkChars), expected, `chunks of ${chunkChars}`);
  });
}

test('top-level undefined writes nothing, like JSON.stringify gives no text', () => {
  assert.is(joined(undefined, 8), '');
});

test('chunks stay near their size: a long string is cut, nothing is built ahead of the chunk asked for', () => {
  const value = { rows: Array.from({ length: 1000 }, (_, index) => ({ index, text: 'x'.repeat(100) })), tail: 'y'.repeat(10_000) };
  let built = 0;
  (value.rows[500] as Record<string, unknown>).toJSON = function (this: object) {
    built += 1;
    return { ...this, toJSON: undefined };
  };
  const chunks = jsonChunks(value, 1024);
  const first = chunks.next();
  assert.not.ok(first.done);
  assert.ok(first.value!.length >= 1024 && first.value!.length < 1024 + 200, `first chunk ${first.value!.length}`);
  assert.is(built, 0, 'row 500 is not reached by the first chunk');
  const rest = [...chunks];
  for (const chunk of rest.slice(0, -1)) assert.ok(chunk.length < 1024 + 200, `chunk of ${chunk.length}`);
  assert.is(built, 1);
  assert.is(first.value + rest.join(''), JSON.stringify(value));
});

test('what JSON.stringify refuses is refused when reached: a cycle, a BigInt', () => {
  const cyclic: Record<string, unknown> = { a: 1 };
  cyclic.self = { back: cyclic };
  assert.throws(() => joined(cyclic, 4), /circular/);
  assert.throws(() => joined({ n: 1n }, 4), /BigInt/);
  const shared = { x: 1 };
  assert.is(joined({ a: shared, b: [shared, shared] }, 3), JSON.stringify({ a: shared, b: [shared, shared] }), 'a repeated object is not a cycle');
});

test('jsonLengthExceeds: close to the serialised length, and stops early on large values', () => {
  assert.not.ok(jsonLengthExceeds({ status: 'ok', n: 1 }, 100));
  assert.ok(jsonLengthExceeds({ text: 'x'.repeat(200) }, 100));
  assert.ok(jsonLengthExceeds(Array.from({ length: 50 }, () => ({ a: 'abc' })), 100));
  const cyclic: Record<string, unknown> = {};
  cyclic.self = cyclic;
  assert.ok(jsonLengthExceeds(cyclic, 1000), 'a cycle is large, never an endless walk');
  const huge = Array.from({ length: 1_000_000 }, (_, index) => index);
  Object.defineProperty(huge, 999_999, {
    get() {
      throw new Error('walked to the end of a value far over budget');
    },
  });
  assert.ok(jsonLengthExceeds(huge, 64 * 1024), 'stops once over budget');
});

test.run();
