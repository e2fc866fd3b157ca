import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { jsonChunks, jsonLengthExceeds } from '../../../adapters/http/jsonChunks.js';
import { JSON_TEXT } from '../../../core/domain/json.js';

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

/** A large part that counts how often it is serialised (each walk of it, or JSON.stringify of it, calls its row's toJSON). */
function countedPart(): { part: { rows: unknown[] }; serialised: () => number } {
  let count = 0;
  const rows: unknown[] = Array.from({ length: 400 }, (_, index) => ({ index, text: `row ${index} 😀 ${'é'.repeat(40)}` }));
  rows[200] = { toJSON: () => (count += 1, { counted: true }) };
  return { part: { rows }, serialised: () => count };
}

test('answers writing the same large part at once build its text once and share it; each writes exactly its JSON', () => {
  const { part, serialised } = countedPart();
  const views = [0, 1, 2, 3].map((reader) => ({ reader, data: part }));
  const answers = views.map((view) => jsonChunks(view, 512));
  const written = views.map(() => '');
  // The first answer goes into the part; the others reach it while it is still writing it.
  written[0] += answers[0]!.next().value ?? '';
  let pending = true;
  while (pending) {
    pending = false;
    answers.forEach((answer, index) => {
      const next = answer.next();
      if (!next.done) {
        written[index] += next.value;
        pending = true;
      }
    });
  }
  assert.is(serialised(), 2, 'walked by the first answer, stringified once for the three others');
  views.forEach((view, index) => assert.is(written[index], JSON.stringify(view), `answer ${index}`));
});

test('an answer alone builds no shared text; a part left by its answers (done or cut short) is walked anew', () => {
  const { part, serialised } = countedPart();
  assert.is(joined({ data: part }, 512), JSON.stringify({ data: part }));
  assert.is(serialised(), 2, 'walked once (and once by JSON.stringify in the assertion)');
  const cut = jsonChunks({ data: part }, 512);
  cut.next();
  cut.return(undefined);
  assert.is(joined({ again: part }, 512), JSON.stringify({ again: part }));
  assert.is(serialised(), 4, 'walked again, not taken from text nobody shares');
});

test('a part whose JSON text is known (JSON_TEXT) is written as that text, never read or serialised again', () => {
  const read = { count: 0 };
  const stored = (eventId: number, text: string): object => {
    const event = { eventId };
    Object.defineProperty(event, 'attributes', { enumerable: true, get: () => (read.count += 1, JSON.parse(text)) });
    Object.defineProperty(event, JSON_TEXT, { value: `{"eventId":${eventId},"attributes":${text}}` });
    return event;
  };
  const page = { events: [stored(1, '{"n":1}'), stored(2, `{"text":"${'é'.repeat(5000)}😀"}`), stored(3, '{}')], nextPageToken: null };
  assert.ok(jsonLengthExceeds(page, 4000), 'measured by its text');
  assert.is(read.count, 0, 'measuring reads no attributes');
  const written = joined(page, 1000);
  assert.is(read.count, 0, 'writing reads no attributes');
  assert.is(written, JSON.stringify(page), 'the same JSON as the object itself');
});

test.run();
