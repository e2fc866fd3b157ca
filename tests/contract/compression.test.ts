import * as assert from 'uvu/assert';
import { createServer, request as nodeRequest, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { request } from 'undici';
import { createFlowgateClient } from '../../adapters/client/index.js';
import { contractSuite, expectStatus, http, openEventStream, wf } from '../support/contract.js';
import { uniqueId } from '../support/http.js';
import type { TestApi } from '../support/engines.js';

/** Compressed answers (docs/api.md, Compression): brotli or gzip by Accept-Encoding, over a real socket. */
const TOKEN = 'compression-Secret-t0ken_77';
const auth = { authorization: `Bearer ${TOKEN}` };
const test = contractSuite('compression', { API_AUTH_TOKEN: TOKEN, METRICS_PORT: '0' });

interface RawAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  /** The bytes as they came over the wire. */
  bytes: Buffer;
}

/** One exchange whose body is kept as sent: undici's `request` decodes nothing. */
async function raw(api: Pick<TestApi, 'baseUrl'>, method: 'GET' | 'HEAD' | 'POST', path: string, headers: Record<string, string>, body?: string): Promise<RawAnswer> {
  const response = await request(`${api.baseUrl}${path}`, { method, headers: { ...auth, ...headers }, ...(body === undefined ? {} : { body }) });
  return { status: response.statusCode, headers: response.headers, bytes: Buffer.from(await response.body.arrayBuffer()) };
}

function decoded(answer: RawAnswer): string {
  const coding = answer.headers['content-encoding'];
  if (coding === 'br') return brotliDecompressSync(answer.bytes).toString('utf8');
  if (coding === 'gzip') return gunzipSync(answer.bytes).toString('utf8');
  assert.is(coding, undefined, 'a coding the test knows');
  return answer.bytes.toString('utf8');
}

function varies(answer: RawAnswer, what: string): void {
  const fields = String(answer.headers['vary'] ?? '').split(',').map((field) => field.trim().toLowerCase());
  assert.ok(fields.includes('accept-encoding'), `${what}: Vary names Accept-Encoding (${String(answer.headers['vary'])})`);
}

/** A completed run whose history page is far larger than a large answer's part (jsonChunks.ts: 64 KiB). */
async function runWithLargeHistory(api: TestApi): Promise<string> {
  const workflowId = uniqueId('compression-large');
  const input = { rows: Array.from({ length: 1500 }, (_, index) => ({ index, sku: `SKU-${index}`, note: `row ${index} of a large input` })) };
  const run = await http(api, 'POST', '/workflow/run', { json: { workflowName: 'any_input', workflowId, input }, headers: auth });
  expectStatus(run, 200, 'the large run');
  return workflowId;
}

test('GET /openapi.json in gzip and in brotli decodes to the same document, with its coded length and Vary', async ({ api }) => {
  const plain = await raw(api, 'GET', '/openapi.json', {});
  assert.is(plain.status, 200);
  assert.is(plain.headers['content-encoding'], undefined, 'no Accept-Encoding: as it is');
  varies(plain, 'identity');
  const document = JSON.parse(decoded(plain)) as unknown;
  for (const coding of ['gzip', 'br'] as const) {
    const answer = await raw(api, 'GET', '/openapi.json', { 'accept-encoding': coding });
    assert.is(answer.status, 200);
    assert.is(answer.headers['content-encoding'], coding);
    assert.is(answer.headers['content-length'], String(answer.bytes.length), `${coding}: the coded length`);
    assert.ok(answer.bytes.length < plain.bytes.length / 4, `${coding}: ${answer.bytes.length} bytes against ${plain.bytes.length}`);
    varies(answer, coding);
    assert.equal(JSON.parse(decoded(answer)), document, `${coding}: the same document`);
  }
  const preferred = await raw(api, 'GET', '/openapi.json', { 'accept-encoding': 'gzip, deflate, br' });
  assert.is(preferred.headers['content-encoding'], 'br', 'brotli when both are accepted alike');
});

test('refused codings and identity get the bytes as they are; q-values choose between the two', async ({ api }) => {
  for (const acceptEncoding of ['gzip;q=0, br;q=0', 'identity', '*;q=0', 'deflate', '']) {
    const answer = await raw(api, 'GET', '/openapi.json', { 'accept-encoding': acceptEncoding });
    assert.is(answer.headers['content-encoding'], undefined, JSON.stringify(acceptEncoding));
    assert.is(answer.headers['content-length'], String(answer.bytes.length));
    varies(answer, JSON.stringify(acceptEncoding));
  }
  assert.is((await raw(api, 'GET', '/openapi.json', { 'accept-encoding': 'br;q=0.5, gzip' })).headers['content-encoding'], 'gzip');
  assert.is((await raw(api, 'GET', '/openapi.json', { 'accept-encoding': 'br;q=0, *' })).headers['content-encoding'], 'gzip');
});

test('the ETag of a coded document is weak, revalidates with 304 in either form; HEAD says what GET does', async ({ api }) => {
  const plain = await raw(api, 'GET', '/openapi.json', {});
  const strong = String(plain.headers['etag']);
  assert.match(strong, /^"[^"]+"$/, 'identity: the strong tag of its bytes');
  const coded = await raw(api, 'GET', '/openapi.json', { 'accept-encoding': 'br' });
  assert.is(coded.headers['etag'], `W/${strong}`, 'coded bytes are not the bytes the strong tag names (RFC 9110 8.8.3)');
  for (const tag of [strong, `W/${strong}`]) {
    const notModified = await raw(api, 'GET', '/openapi.json', { 'accept-encoding': 'br', 'if-none-match': tag });
    assert.is(notModified.status, 304, tag);
    assert.is(notModified.headers['etag'], `W/${strong}`, `${tag}: the 304 names the tag its 200 carries`);
    varies(notModified, '304');
    assert.is(notModified.bytes.length, 0);
  }
  for (const coding of ['gzip', 'br'] as const) {
    const get = await raw(api, 'GET', '/openapi.json', { 'accept-encoding': coding });
    const head = await raw(api, 'HEAD', '/openapi.json', { 'accept-encoding': coding });
    assert.is(head.status, 200);
    assert.is(head.bytes.length, 0);
    for (const name of ['content-encoding', 'content-length', 'etag', 'vary', 'content-type']) assert.is(head.headers[name], get.headers[name], `${coding}: HEAD's ${name}`);
  }
});

test('a large history page streams coded (no length), decodes to the page identity sends; HEAD names the coding', async ({ api }) => {
  const workflowId = await runWithLargeHistory(api);
  const path = `${wf(workflowId)}/history?pageSize=200`;
  const plain = await raw(api, 'GET', path, {});
  assert.is(plain.status, 200);
  assert.ok(plain.bytes.length > 100_000, `a large page (${plain.bytes.length} bytes)`);
  const page = JSON.parse(decoded(plain)) as unknown;
  for (const acceptEncoding of ['gzip', 'br', 'gzip, br']) {
    const answer = await raw(api, 'GET', path, { 'accept-encoding': acceptEncoding });
    assert.is(answer.status, 200);
    assert.ok(answer.headers['content-encoding'] === 'gzip' || answer.headers['content-encoding'] === 'br', acceptEncoding);
    assert.ok(acceptEncoding.includes(String(answer.headers['content-encoding'])), `${acceptEncoding}: a coding it accepts`);
    assert.is(answer.headers['content-length'], undefined, `${acceptEncoding}: streamed, chunked`);
    varies(answer, acceptEncoding);
    assert.ok(answer.bytes.length < plain.bytes.length / 5, `${acceptEncoding}: ${answer.bytes.length} bytes against ${plain.bytes.length}`);
    assert.equal(JSON.parse(decoded(answer)), page, `${acceptEncoding}: the same page`);
    const head = await raw(api, 'HEAD', path, { 'accept-encoding': acceptEncoding });
    assert.is(head.headers['content-encoding'], answer.headers['content-encoding'], `${acceptEncoding}: HEAD names GET's coding`);
    assert.is(head.headers['content-length'], undefined, `${acceptEncoding}: HEAD, like GET, announces no length`);
    assert.is(head.bytes.length, 0);
  }
  // The result and the input carry the same large value.
  for (const part of ['result', 'input']) {
    const answer = await raw(api, 'GET', `${wf(workflowId)}/${part}`, { 'accept-encoding': 'gzip' });
    assert.is(answer.headers['content-encoding'], 'gzip', part);
    assert.equal(JSON.parse(decoded(answer)), JSON.parse(decoded(await raw(api, 'GET', `${wf(workflowId)}/${part}`, {}))), part);
  }
});

test('small answers go out as they are, with their length and Vary', async ({ api }) => {
  const workflowId = uniqueId('compression-small');
  expectStatus(await http(api, 'POST', '/workflow/run', { json: { workflowName: 'echo', workflowId, input: { message: 'hi' } }, headers: auth }), 200);
  for (const path of ['/health', `${wf(workflowId)}/status`]) {
    const plain = await raw(api, 'GET', path, {});
    const answer = await raw(api, 'GET', path, { 'accept-encoding': 'gzip, br' });
    assert.is(answer.status, 200, path);
    assert.ok(answer.bytes.length < 1024, `${path}: small (${answer.bytes.length} bytes)`);
    assert.is(answer.headers['content-encoding'], undefined, path);
    assert.is(answer.headers['content-length'], String(answer.bytes.length), path);
    assert.is(answer.headers['transfer-encoding'], undefined, `${path}: not chunked`);
    varies(answer, path);
    assert.equal(Object.keys(JSON.parse(decoded(answer)) as object).sort(), Object.keys(JSON.parse(decoded(plain)) as object).sort(), path);
  }
});

test('the event stream is never coded: its events arrive as they are sent', async ({ api }) => {
  const workflowId = uniqueId('compression-stream');
  expectStatus(await http(api, 'POST', '/workflow', { json: { workflowName: 'awaits_feedback', workflowId, input: {} }, headers: auth }), 200);
  const stream = await openEventStream(api, `${wf(workflowId)}/history`, { ...auth, 'accept-encoding': 'gzip, br' });
  try {
    assert.is(stream.status, 200);
    assert.match(stream.headers['content-type'] ?? '', /^text\/event-stream/);
    assert.is(stream.headers['content-encoding'], undefined);
    // A compressor would hold these back until it had enough (or the stream ended): the run is still waiting.
    const first = await stream.next(5_000);
    assert.ok(first, 'the first event, while the run waits');
  } finally {
    stream.close();
    await http(api, 'POST', '/workflow/feedback', { json: { workflowId, payload: { done: true } }, headers: auth });
  }
});

test('GET and HEAD /metrics in gzip (as Prometheus asks), on the API and on METRICS_PORT: HEAD with the coded length', async ({ api }) => {
  for (const [where, target] of [['the API', api], ['METRICS_PORT', { baseUrl: api.metricsUrl! }]] as const) {
    const plain = await raw(target, 'GET', '/metrics', {});
    assert.is(plain.headers['content-encoding'], undefined, where);
    const gzip = await raw(target, 'GET', '/metrics', { 'accept-encoding': 'gzip' });
    assert.is(gzip.headers['content-encoding'], 'gzip', where);
    assert.is(gzip.headers['content-length'], String(gzip.bytes.length), where);
    varies(gzip, where);
    assert.match(decoded(gzip), /^# HELP flowgate_/m, where);
    assert.ok(gzip.bytes.length < plain.bytes.length / 3, where);
    const head = await raw(target, 'HEAD', '/metrics', { 'accept-encoding': 'gzip' });
    assert.is(head.headers['content-encoding'], 'gzip', where);
    assert.is(head.bytes.length, 0, where);
    // Not equal to the byte: the text changes between two scrapes (durations, CPU seconds, the GET just counted).
    const announced = Number(head.headers['content-length']);
    assert.ok(Math.abs(announced - gzip.bytes.length) < gzip.bytes.length / 5, `${where}: HEAD announces about GET's coded length (${announced} vs ${gzip.bytes.length})`);
  }
});

test('flowgate/client asks for compressed answers and decodes them', async ({ api }) => {
  const workflowId = await runWithLargeHistory(api);
  const proxy = await recordingProxy(api.baseUrl);
  const client = createFlowgateClient({ baseUrl: proxy.url, token: TOKEN });
  try {
    const page = await client.history(workflowId, { pageSize: 200 });
    const document = await client.openApi();
    assert.equal(page, (await http(api, 'GET', `${wf(workflowId)}/history?pageSize=200`, { headers: auth })).body);
    assert.equal(document, (await http(api, 'GET', '/openapi.json')).body);
    const codings = proxy.answers.map((answer) => answer.contentEncoding);
    assert.ok(codings.length >= 2 && codings.every((coding) => coding === 'br' || coding === 'gzip'), `answers came coded: ${JSON.stringify(proxy.answers)}`);
  } finally {
    await client.close();
    await proxy.close();
  }
});

/** A loopback proxy that passes every exchange through as it is and notes each answer's coding. */
async function recordingProxy(target: string): Promise<{ url: string; answers: { path: string; contentEncoding: string | undefined }[]; close(): Promise<void> }> {
  const answers: { path: string; contentEncoding: string | undefined }[] = [];
  const server = createServer((incoming, outgoing) => {
    const forwarded = nodeRequest(`${target}${incoming.url ?? '/'}`, { method: incoming.method, headers: incoming.headers }, (answer) => {
      answers.push({ path: incoming.url ?? '', contentEncoding: answer.headers['content-encoding'] });
      outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(outgoing);
    });
    forwarded.on('error', () => outgoing.destroy());
    incoming.pipe(forwarded);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    answers,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

test.run();
