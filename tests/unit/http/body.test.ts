import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { PayloadTooLargeError, ValidationError } from '../../../core/domain/errors.js';
import { UnsupportedMediaTypeError } from '../../../adapters/http/transportErrors.js';
import { EMPTY_BODY, isJsonMediaType, readJsonBody } from '../../../adapters/http/body.js';
import type { RequestHeaders } from '../../../adapters/http/types.js';
import { rejection } from '../../support/rejection.js';

const encoder = new TextEncoder();

/** A body that records how many chunks were pulled, to prove reading stops early. */
function chunked(parts: (string | Uint8Array)[]) {
  const state = { pulled: 0, returned: false };
  const body: AsyncIterable<Uint8Array> = {
    [Symbol.asyncIterator]() {
      let index = 0;
      return {
        async next() {
          if (index >= parts.length) return { done: true, value: undefined };
          state.pulled += 1;
          const part = parts[index++]!;
          return { done: false, value: typeof part === 'string' ? encoder.encode(part) : part };
        },
        async return() {
          state.returned = true;
          return { done: true, value: undefined };
        },
      };
    },
  };
  return { body, state };
}

const json = (text: string, headers: RequestHeaders = { 'content-type': 'application/json' }) => ({ headers, body: chunked([text]).body });
const limits = { maxBytes: 64, maxDepth: 100, optional: false };

test('parses JSON split across chunks, multi-byte characters included', async () => {
  const bytes = encoder.encode('{"name":"zoë ☃"}');
  const { body } = chunked([bytes.slice(0, 11), bytes.slice(11, 13), bytes.slice(13)]);
  assert.equal(await readJsonBody({ headers: { 'content-type': 'application/json' }, body }, limits), { name: 'zoë ☃' });
});

test('content types: application/json with a UTF-8 charset only', async () => {
  assert.ok(isJsonMediaType('application/json'));
  assert.ok(isJsonMediaType('Application/JSON; charset=UTF-8'));
  assert.ok(isJsonMediaType('application/json;charset="utf-8"'));
  assert.not.ok(isJsonMediaType('application/json; charset=latin1'));
  assert.not.ok(isJsonMediaType('text/plain'));
  assert.not.ok(isJsonMediaType('application/jsonx'));
  assert.not.ok(isJsonMediaType('multipart/form-data; boundary=x'));
  const error = await rejection(readJsonBody(json('{}', { 'content-type': 'text/plain' }), limits));
  assert.instance(error, UnsupportedMediaTypeError);
});

test('a wrong content type is refused before any byte is read', async () => {
  const { body, state } = chunked(['{}']);
  await rejection(readJsonBody({ headers: { 'content-type': 'application/xml' }, body }, limits));
  assert.is(state.pulled, 0);
});

test('a non-empty body without a content type is 415; an empty one is just empty', async () => {
  assert.instance(await rejection(readJsonBody(json('{}', {}), limits)), UnsupportedMediaTypeError);
  assert.is(await readJsonBody(json('', {}), { ...limits, optional: true }), EMPTY_BODY);
});

test('compressed bodies are refused', async () => {
  const error = await rejection(readJsonBody(json('{}', { 'content-type': 'application/json', 'content-encoding': 'gzip' }), limits));
  assert.instance(error, UnsupportedMediaTypeError);
});

test('a declared Content-Length over the cap is refused without reading', async () => {
  const { body, state } = chunked(['{}']);
  const error = await rejection(readJsonBody({ headers: { 'content-type': 'application/json', 'content-length': '65' }, body }, limits));
  assert.instance(error, PayloadTooLargeError);
  assert.is(state.pulled, 0);
});

test('a body growing past the cap stops being read at the chunk that crosses it', async () => {
  const { body, state } = chunked(['{"a":"' + 'x'.repeat(40), 'x'.repeat(40), 'never read', '"}']);
  const error = await rejection(readJsonBody({ headers: { 'content-type': 'application/json' }, body }, limits));
  assert.instance(error, PayloadTooLargeError);
  assert.is(state.pulled, 2);
  // Not return(): on node:http that would destroy the socket before the 413 is written.
  assert.is(state.returned, false);
});

test('exactly the cap is accepted', async () => {
  const text = JSON.stringify({ a: 'x'.repeat(56) });
  assert.is(text.length, 64);
  assert.equal(await readJsonBody(json(text), limits), { a: 'x'.repeat(56) });
});

test('invalid JSON and invalid UTF-8 are ValidationErrors', async () => {
  for (const text of ['{"a":', '{a:1}', "{'a':1}", 'undefined']) {
    const error = await rejection(readJsonBody(json(text), limits));
    assert.instance(error, ValidationError, text);
    assert.is((error as InstanceType<typeof ValidationError>).issues?.[0]?.code, 'invalid_json');
  }
  const { body } = chunked([new Uint8Array([0x7b, 0xff, 0x7d])]);
  const error = await rejection(readJsonBody({ headers: { 'content-type': 'application/json' }, body }, limits));
  assert.instance(error, ValidationError);
  assert.match(error.message, /UTF-8/);
});

test('a character cut short at the end of the body, or an overlong encoding, is invalid UTF-8; a byte order mark is ignored', async () => {
  const snowman = encoder.encode('☃');
  for (const parts of [[encoder.encode('{"a":"'), snowman.slice(0, 2)], [new Uint8Array([0x22, 0xc0, 0xaf, 0x22])], [encoder.encode('"x'), new Uint8Array([0xed, 0xa0, 0x80]), encoder.encode('"')]]) {
    const error = await rejection(readJsonBody({ headers: { 'content-type': 'application/json' }, body: chunked(parts).body }, limits));
    assert.instance(error, ValidationError);
    assert.is((error as InstanceType<typeof ValidationError>).issues?.[0]?.code, 'invalid_encoding');
  }
  const withMark = chunked([new Uint8Array([0xef, 0xbb]), new Uint8Array([0xbf]), encoder.encode('{"a":"\ufeff"}')]).body;
  assert.equal(await readJsonBody({ headers: { 'content-type': 'application/json' }, body: withMark }, limits), { a: '\ufeff' }, 'only the leading mark is dropped');
  const twoMarks = chunked([new Uint8Array([0xef, 0xbb, 0xbf, 0xef, 0xbb, 0xbf]), encoder.encode('{}')]).body;
  const error = await rejection(readJsonBody({ headers: { 'content-type': 'application/json' }, body: twoMarks }, limits));
  assert.is((error as InstanceType<typeof ValidationError>).issues?.[0]?.code, 'invalid_json', 'one mark is dropped, not two');
});

test('an empty body: required is 400, optional is EMPTY_BODY', async () => {
  const error = await rejection(readJsonBody({ headers: { 'content-type': 'application/json' }, body: null }, limits));
  assert.instance(error, ValidationError);
  assert.is(await readJsonBody({ headers: { 'content-type': 'application/json' }, body: null }, { ...limits, optional: true }), EMPTY_BODY);
  assert.is(await readJsonBody(json('  \n'), { ...limits, optional: true }), EMPTY_BODY);
});

test('any JSON value parses, null and scalars included (the schema decides what is allowed)', async () => {
  assert.is(await readJsonBody(json('null'), limits), null);
  assert.is(await readJsonBody(json('42'), limits), 42);
});

test('deeper than maxDepth is a 400 before parsing; up to it is accepted', async () => {
  const nested = (levels: number) => `${'['.repeat(levels)}${']'.repeat(levels)}`;
  assert.equal(await readJsonBody(json(nested(5)), { maxBytes: 1024, maxDepth: 5, optional: false }), [[[[[]]]]]);
  const error = await rejection(readJsonBody(json(nested(6)), { maxBytes: 1024, maxDepth: 5, optional: false }));
  assert.instance(error, ValidationError);
  assert.match(error.message, /deeper than 5 levels/);
  assert.is((error as InstanceType<typeof ValidationError>).issues?.[0]?.code, 'too_deep');
});

test('a __proto__ key, or constructor.prototype, is a 400 naming where it is; the prototype is untouched', async () => {
  for (const text of ['{"input":{"__proto__":{"polluted":true}}}', '{"input":{"constructor":{"prototype":{"polluted":true}}}}']) {
    const error = await rejection(readJsonBody(json(text), { maxBytes: 1024, maxDepth: 100, optional: false }));
    assert.instance(error, ValidationError);
    assert.match(error.message, /could reach object prototypes/);
    assert.equal((error as InstanceType<typeof ValidationError>).issues?.[0]?.path, ['input']);
    assert.is(({} as Record<string, unknown>)['polluted'], undefined);
  }
  assert.equal(await readJsonBody(json('{"constructor":"Ford"}'), { maxBytes: 1024, maxDepth: 100, optional: false }), { constructor: 'Ford' });
});

test.run();
