import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { compressedStream, ResponseCompression } from '../../../adapters/http/compression.js';
import { createFetchHandler } from '../../../adapters/http/fetch.js';
import type { HttpResponse } from '../../../adapters/http/types.js';
import { RecordingApi, SequentialIds } from './fakeApi.js';
import { HTTP_APP_DEFAULTS } from '../../support/httpDefaults.js';
import { CapturingLogger } from '../../support/logLines.js';

/** The compression of answers in the transport-neutral app (the contract suite checks it over a socket). */

const decode = (coding: string | undefined, bytes: Uint8Array): string =>
  (coding === 'br' ? brotliDecompressSync(bytes) : coding === 'gzip' ? gunzipSync(bytes) : Buffer.from(bytes)).toString('utf8');

async function collect(body: AsyncIterable<string | Uint8Array>): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const part of body) parts.push(typeof part === 'string' ? Buffer.from(part) : Buffer.from(part));
  return Buffer.concat(parts);
}

const json = (body: string | AsyncIterable<string>, extra: Record<string, string> = {}): HttpResponse => ({
  status: 200,
  headers: { 'content-type': 'application/json; charset=utf-8', ...extra },
  body,
});

test('a streamed answer is pulled part by part as its reader takes it, and decodes to the same text', async () => {
  // Parts as large as a large answer's (jsonChunks.ts): brotli gives its first bytes once it has a block of input.
  const parts = Array.from({ length: 40 }, (_, index) => `{"part":${index},"text":"${'abc'.repeat(20_000)}${Math.random()}"}`);
  let pulled = 0;
  async function* source() {
    for (const part of parts) {
      pulled += 1;
      yield part;
    }
  }
  for (const coding of ['gzip', 'br'] as const) {
    pulled = 0;
    const stream = compressedStream(source(), coding);
    const first = await stream.next();
    assert.ok(!first.done);
    assert.ok(pulled < parts.length, `${coding}: not read ahead of its reader (pulled ${pulled} of ${parts.length} for the first part)`);
    const rest = await collect({ [Symbol.asyncIterator]: () => stream });
    assert.is(decode(coding, Buffer.concat([Buffer.from(first.value!), rest])), parts.join(''), coding);
  }
});

test('a reader that leaves a streamed answer ends its source (its clean-up runs)', async () => {
  let ended = false;
  async function* source() {
    try {
      for (let index = 0; ; index++) yield `${index}:${'x'.repeat(100_000)}${Math.random()}`;
    } finally {
      ended = true;
    }
  }
  const stream = compressedStream(source(), 'gzip');
  for await (const _part of stream) break;
  assert.ok(ended, 'the source generator was returned');
});

test('Vary joins what the answer already varies on; a 304 carries it and the weak tag of the coded 200', async () => {
  const compression = new ResponseCompression();
  const response = json('{"status":"ok"}', { vary: 'Origin' });
  await compression.encode(response, 'gzip', false);
  assert.is(response.headers['vary'], 'Origin, Accept-Encoding');
  assert.is(response.headers['content-encoding'], undefined, 'under the threshold: as it was');
  assert.is(response.body, '{"status":"ok"}');

  const notModified: HttpResponse = { status: 304, headers: { etag: '"abc"', 'cache-control': 'public, max-age=300' }, body: null };
  await compression.encode(notModified, 'br', false);
  assert.is(notModified.headers['etag'], 'W/"abc"');
  assert.is(notModified.headers['vary'], 'Accept-Encoding');
  const plain: HttpResponse = { status: 304, headers: { etag: '"abc"' }, body: null };
  await compression.encode(plain, undefined, false);
  assert.is(plain.headers['etag'], '"abc"', 'identity keeps the strong tag');
});

test('an answer already coded, or of a type that does not compress, is left alone', async () => {
  const compression = new ResponseCompression();
  const coded = json('x'.repeat(5000), { 'content-encoding': 'gzip' });
  await compression.encode(coded, 'br', false);
  assert.is(coded.body, 'x'.repeat(5000));
  const events: HttpResponse = { status: 200, headers: { 'content-type': 'text/event-stream; charset=utf-8' }, body: 'data: x\n\n'.repeat(500) };
  await compression.encode(events, 'gzip, br', false);
  assert.is(events.headers['content-encoding'], undefined);
  assert.is(events.headers['vary'], undefined);
  const png: HttpResponse = { status: 200, headers: { 'content-type': 'image/png' }, body: 'x'.repeat(5000) };
  await compression.encode(png, 'gzip', false);
  assert.is(png.headers['content-encoding'], undefined);
});

test('whole answers small and large decode to the same text; one with a strong ETag is compressed once', async () => {
  const compression = new ResponseCompression();
  for (const length of [1024, 20_000, 300_000]) {
    const text = JSON.stringify({ items: Array.from({ length }, (_, index) => index) }).slice(0, length);
    assert.is(text.length, length);
    for (const coding of ['gzip', 'br'] as const) {
      const response = json(text);
      await compression.encode(response, coding, false);
      assert.is(response.headers['content-encoding'], coding, `${length} ${coding}`);
      assert.is(decode(coding, response.body as Uint8Array), text, `${length} ${coding}`);
    }
  }
  const first = json('y'.repeat(4000), { etag: '"same"' });
  const second = json('y'.repeat(4000), { etag: '"same"' });
  await compression.encode(first, 'br', false);
  await compression.encode(second, 'br', false);
  assert.ok(first.body === second.body, 'the kept bytes');
  assert.is(first.headers['etag'], 'W/"same"');
});

test('the fetch handler answers compressed too, and not when made with compression: false', async () => {
  const options = { api: new RecordingApi(), logger: new CapturingLogger(), ids: new SequentialIds(), ...HTTP_APP_DEFAULTS };
  const request = () => new Request('http://api.test/openapi.json', { headers: { 'accept-encoding': 'br' } });
  const compressed = await createFetchHandler(options)(request());
  assert.is(compressed.headers.get('content-encoding'), 'br');
  assert.is(compressed.headers.get('vary'), 'Accept-Encoding');
  const document = JSON.parse(decode('br', new Uint8Array(await compressed.arrayBuffer())));
  assert.is(document.openapi, '3.1.0');
  const plain = await createFetchHandler({ ...options, compression: false })(request());
  assert.is(plain.headers.get('content-encoding'), null);
  assert.is(plain.headers.get('vary'), null);
  assert.is(((await plain.json()) as { openapi: string }).openapi, '3.1.0');
});

test.run();
