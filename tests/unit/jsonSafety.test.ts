import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { findPrototypeKey, jsonNestingDepth, mayHavePrototypeKey } from '../../core/validation/jsonSafety.js';

test('nesting depth counts arrays and objects, not brackets inside strings or after escapes', () => {
  assert.is(jsonNestingDepth('1'), 0);
  assert.is(jsonNestingDepth('{}'), 1);
  assert.is(jsonNestingDepth('{"a":[1,{"b":[]}],"c":{}}'), 4);
  assert.is(jsonNestingDepth('{"a":"[[[{{{"}'), 1);
  assert.is(jsonNestingDepth('["\\"[[[", "\\\\", [[]]]'), 3);
  assert.is(jsonNestingDepth('[[],[],[[]]]'), 3);
});

test('nesting depth stops counting once past the limit (a 1 MiB body of "[" is answered at once)', () => {
  const deep = '['.repeat(1024 * 1024);
  assert.is(jsonNestingDepth(deep, 100), 101);
  assert.is(jsonNestingDepth(deep), 1024 * 1024);
});

test('prototype keys: __proto__ anywhere, constructor only when it holds a prototype, with the path of the holder', () => {
  assert.equal(findPrototypeKey(JSON.parse('{"__proto__":{"admin":true}}')), { key: '__proto__', path: [] });
  assert.equal(findPrototypeKey(JSON.parse('{"a":[1,{"b":{"__proto__":null}}]}')), { key: '__proto__', path: ['a', 1, 'b'] });
  assert.equal(findPrototypeKey(JSON.parse('{"x":{"constructor":{"prototype":{"admin":true}}}}')), { key: 'constructor', path: ['x'] });
  // Ordinary data that merely uses the words.
  assert.is(findPrototypeKey(JSON.parse('{"constructor":"Ford","car":{"constructor":{"name":"T"}},"note":"__proto__"}')), undefined);
  assert.is(findPrototypeKey(['__proto__', null, 1, 'x']), undefined);
  // An escaped spelling is the same key once parsed.
  assert.equal(findPrototypeKey(JSON.parse('{"\\u005f_proto__":{}}')), { key: '__proto__', path: [] });
});

test('the walk queues only objects and arrays: a million numbers under a deep array are checked at once', () => {
  const wide = JSON.parse(`{"s":"\\u0041","a":${'['.repeat(99)}[${Array(1_000_000).fill(0).join(',')}]${']'.repeat(99)}}`);
  const before = process.memoryUsage().heapUsed;
  assert.is(findPrototypeKey(wide), undefined);
  // The old walk copied a 100-entry path for each of the million zeros: gigabytes.
  assert.ok(process.memoryUsage().heapUsed - before < 64 * 1024 * 1024, 'no path array per element');
});

test('the cheap pre-check sends every spelling of the keys to the walk, and spares plain bodies', () => {
  assert.ok(mayHavePrototypeKey('{"__proto__":1}'));
  assert.ok(mayHavePrototypeKey('{"constructor":{"prototype":1}}'));
  assert.ok(mayHavePrototypeKey('{"\\u005f_proto__":{}}'));
  assert.not.ok(mayHavePrototypeKey('{"workflowName":"a","input":{"n":1}}'));
});

test.run();
