import * as assert from 'uvu/assert';
import { connect } from 'node:net';
import { request } from 'undici';
import { uniqueId } from '../support/http.js';
import { contractSuite, expectError, expectStatus, http, wf } from '../support/contract.js';

/** API_AUTH_TOKEN: bearer authentication on every endpoint except /ready, /health and /openapi.json. */
const TOKEN = 'contract-Secret-t0ken_5c1f9a';
const RIGHT = { authorization: `Bearer ${TOKEN}` };
const test = contractSuite('auth on', { API_AUTH_TOKEN: TOKEN });

const WRONG_HEADERS: [string, Record<string, string>][] = [
  ['missing', {}],
  ['empty', { authorization: '' }],
  ['wrong token', { authorization: 'Bearer not-the-token' }],
  ['token prefix', { authorization: `Bearer ${TOKEN.slice(0, -1)}` }],
  ['token plus suffix', { authorization: `Bearer ${TOKEN}x` }],
  ['other scheme with the token', { authorization: `Token ${TOKEN}` }],
  ['basic scheme', { authorization: `Basic ${Buffer.from(`user:${TOKEN}`).toString('base64')}` }],
  ['bare token', { authorization: TOKEN }],
  ['scheme only', { authorization: 'Bearer' }],
];

function expectUnauthorized(response: Awaited<ReturnType<typeof http>>, what: string): void {
  expectError(response, 401, 'UnauthorizedError', { workflowId: null });
  assert.match(response.headers['www-authenticate'] ?? '', /^Bearer\b/, `${what}: WWW-Authenticate: Bearer`);
  assert.not.ok(response.text.includes(TOKEN), `${what}: the token is not in the body`);
}

test('missing, wrong or other-scheme credentials: 401 UnauthorizedError with WWW-Authenticate: Bearer', async ({ api }) => {
  const messages = new Set<string>();
  for (const [what, headers] of WRONG_HEADERS) {
    for (const [method, path] of [
      ['GET', '/workflow/list'],
      ['GET', '/workflow/runs'],
      ['GET', `${wf('some-id')}/status`],
    ] as const) {
      const response = await http(api, method, path, { headers });
      expectUnauthorized(response, `${what} on ${method} ${path}`);
      messages.add(response.body.message);
    }
  }
  assert.is(messages.size, 1, 'the message does not tell which part was wrong');
});

test('the right token: requests are served', async ({ api }) => {
  expectStatus(await http(api, 'GET', '/workflow/list', { headers: RIGHT }), 200);
  const run = await http(api, 'POST', '/workflow/run', { json: { workflowName: 'echo', input: { message: 'authorised' } }, headers: RIGHT });
  expectStatus(run, 200);
  const result = await http(api, 'GET', `${wf(run.body.workflowId)}/result`, { headers: RIGHT });
  expectStatus(result, 200);
  assert.equal(result.body.output, { message: 'authorised' });
});

test('a refused request starts nothing and changes nothing', async ({ api }) => {
  const workflowId = uniqueId('auth-refused');
  for (const [what, headers] of WRONG_HEADERS) {
    const response = await http(api, 'POST', '/workflow', { json: { workflowName: 'awaits_feedback', workflowId, input: {} }, headers });
    expectUnauthorized(response, what);
  }
  expectError(await http(api, 'GET', `${wf(workflowId)}/status`, { headers: RIGHT }), 404, 'WorkflowNotFoundError', {
    maybeWorkflowId: workflowId,
  });

  const started = await http(api, 'POST', '/workflow', { json: { workflowName: 'awaits_feedback', workflowId, input: {} }, headers: RIGHT });
  expectStatus(started, 200);
  const pinned = wf(workflowId, started.body.runId);
  expectUnauthorized(await http(api, 'POST', `${pinned}/terminate`, { json: {} }), 'terminate');
  expectUnauthorized(await http(api, 'PATCH', `${pinned}/stop`, { headers: { authorization: 'Bearer nope' } }), 'stop');
  expectUnauthorized(await http(api, 'POST', '/workflow/feedback', { json: { workflowId, payload: { x: 1 } } }), 'feedback');
  const status = await http(api, 'GET', `${pinned}/status`, { headers: RIGHT });
  assert.is(status.body.status, 'running', 'still running: neither stopped, terminated nor resumed');
  expectStatus(await http(api, 'POST', `${pinned}/terminate`, { json: {}, headers: RIGHT }), 200);
});

test('/ready, /health and /openapi.json are open', async ({ api }) => {
  for (const path of ['/ready', '/health', '/openapi.json']) {
    const response = await http(api, 'GET', path);
    expectStatus(response, 200, path);
    assert.is(response.headers['www-authenticate'], undefined);
  }
});

test('the token never appears in a log line', async ({ api }) => {
  await http(api, 'GET', '/workflow/list', { headers: RIGHT });
  await http(api, 'GET', '/health', { headers: RIGHT });
  await http(api, 'GET', '/workflow/list', { headers: { authorization: `Token ${TOKEN}` } });
  await http(api, 'GET', '/nope', { headers: RIGHT });
  await http(api, 'POST', '/workflow/run', { json: { workflowName: 'fails_in_workflow', input: {} }, headers: RIGHT });
  assert.ok(api.logs.length > 0, 'the server logged');
  for (const line of api.logs) {
    assert.not.ok(JSON.stringify(line).includes(TOKEN), `log line leaks the token: ${JSON.stringify(line)}`);
    assert.not.ok(JSON.stringify(line).includes(TOKEN.slice(0, 12)), `log line leaks part of the token: ${JSON.stringify(line)}`);
  }
});

test('two Authorization headers are refused 401, the right token first or twice; nothing is served', async ({ api }) => {
  const workflowId = uniqueId('auth-twice');
  for (const [first, second] of [[RIGHT.authorization, 'Bearer wrong'], [RIGHT.authorization, RIGHT.authorization], ['Bearer wrong', RIGHT.authorization]]) {
    const body = JSON.stringify({ workflowName: 'echo', workflowId, input: { message: 'twice' } });
    const status = await rawExchange(
      api.baseUrl,
      `POST /workflow HTTP/1.1\r\nHost: localhost\r\nAuthorization: ${first}\r\nAuthorization: ${second}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`,
    );
    assert.match(status, /^HTTP\/1\.1 401 /, `${first} then ${second}`);
  }
  expectError(await http(api, 'GET', `${wf(workflowId)}/status`, { headers: RIGHT }), 404, 'WorkflowNotFoundError', { maybeWorkflowId: workflowId });
});

test('HEAD: answered wherever GET is, without a body; the public probes need no token, the rest does', async ({ api }) => {
  for (const path of ['/ready', '/health', '/openapi.json']) {
    const head = await request(`${api.baseUrl}${path}`, { method: 'HEAD' });
    assert.is(head.statusCode, 200, `HEAD ${path}`);
    assert.is(await head.body.text(), '', `HEAD ${path} has no body`);
    assert.ok(head.headers['x-request-id']);
  }
  const run = await http(api, 'POST', '/workflow/run', { json: { workflowName: 'echo', input: { message: 'head' } }, headers: RIGHT });
  expectStatus(run, 200);
  const pinned = wf(run.body.workflowId, run.body.runId);
  for (const path of [`${pinned}/status`, `${pinned}/result`, `${wf(run.body.workflowId)}/history`, `${pinned}/trace-log`, '/workflow/list', '/workflow/runs']) {
    const refused = await request(`${api.baseUrl}${path}`, { method: 'HEAD' });
    assert.is(refused.statusCode, 401, `HEAD ${path} without the token`);
    await refused.body.dump();
    const head = await request(`${api.baseUrl}${path}`, { method: 'HEAD', headers: RIGHT });
    assert.is(head.statusCode, 200, `HEAD ${path}`);
    assert.is(await head.body.text(), '', `HEAD ${path} has no body`);
    assert.match(String(head.headers['content-type']), /^application\/json/);
  }
  const missing = await request(`${api.baseUrl}${wf(uniqueId('head-missing'))}/status`, { method: 'HEAD', headers: RIGHT });
  assert.is(missing.statusCode, 404, 'HEAD of an unknown run is the 404 GET gives');
  await missing.body.dump();
});

test('HEAD answers as GET without the body on every GET route the document lists: status, type and length', async ({ api }) => {
  const run = await http(api, 'POST', '/workflow/run', { json: { workflowName: 'echo', input: { message: 'every head' } }, headers: RIGHT });
  expectStatus(run, 200);
  const paths = Object.entries((await http(api, 'GET', '/openapi.json')).body.paths as Record<string, Record<string, unknown>>)
    .filter(([, operations]) => operations.get !== undefined)
    .map(([template]) => template.replace('{id}', encodeURIComponent(run.body.workflowId)).replace('{rid}', run.body.runId));
  assert.ok(paths.length >= 10, 'every GET route');
  for (const path of paths) {
    const get = await request(`${api.baseUrl}${path}`, { headers: RIGHT });
    const body = await get.body.text();
    const head = await request(`${api.baseUrl}${path}`, { method: 'HEAD', headers: RIGHT });
    assert.is(await head.body.text(), '', `HEAD ${path}: no body`);
    assert.is(head.statusCode, get.statusCode, `HEAD ${path}: GET's status`);
    assert.is(head.headers['content-type'], get.headers['content-type'], `HEAD ${path}: GET's type`);
    assert.is(get.headers['content-length'], String(Buffer.byteLength(body)), `GET ${path} announces its length`);
    const announced = Number(head.headers['content-length']);
    if (path === '/metrics') {
      // The exposition changes between two scrapes (durations, CPU seconds, the GET just counted): about its length.
      assert.ok(Math.abs(announced - body.length) < body.length / 10, `HEAD ${path} announces about GET's length (${announced} vs ${body.length})`);
    } else {
      assert.is(announced, Buffer.byteLength(body), `HEAD ${path} announces GET's length`);
    }
  }
});

/** One request written as it is on a raw socket; returns the status line of the answer. */
async function rawExchange(baseUrl: string, raw: string): Promise<string> {
  const { hostname, port } = new URL(baseUrl);
  const socket = connect(Number(port), hostname);
  const chunks: Buffer[] = [];
  socket.on('data', (chunk: Buffer) => chunks.push(chunk));
  const closed = new Promise<void>((resolve) => {
    socket.once('close', () => resolve());
    socket.once('error', () => resolve());
  });
  socket.write(raw);
  await closed;
  return Buffer.concat(chunks).toString('latin1').split('\r\n', 1)[0] ?? '';
}

/** One request over a raw socket, so header bytes no HTTP client would send arrive as they are. Returns the status line. */
async function rawStatus(baseUrl: string, path: string, authorization: Buffer): Promise<string> {
  const { hostname, port } = new URL(baseUrl);
  const socket = connect(Number(port), hostname);
  const chunks: Buffer[] = [];
  socket.on('data', (chunk: Buffer) => chunks.push(chunk));
  const closed = new Promise<void>((resolve) => {
    socket.once('close', () => resolve());
    socket.once('error', () => resolve());
  });
  socket.write(Buffer.concat([Buffer.from(`GET ${path} HTTP/1.1\r\nHost: localhost\r\nAuthorization: `), authorization, Buffer.from('\r\nConnection: close\r\n\r\n')]));
  await closed;
  return Buffer.concat(chunks).toString('latin1').split('\r\n', 1)[0] ?? '';
}

/** A small seeded generator: the fuzz is the same on every run, so a failure can be replayed. */
function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function fuzzedAuthorizations(count: number): Buffer[] {
  const random = seededRandom(20261123);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const schemes = ['Bearer', 'bearer', 'Basic', 'Token', 'Digest', 'Bearer:', 'Bearer\u00a0', 'Beärer', ''];
  const bodies = [
    () => TOKEN.slice(0, Math.floor(random() * TOKEN.length)),
    () => `${TOKEN}${pick(['x', ' x', '\t', ',', ' ,Bearer x'])}`,
    () => TOKEN.split('').reverse().join(''),
    () => 'a'.repeat(1 + Math.floor(random() * 8000)),
    () => Buffer.from(TOKEN).toString('base64'),
    () => '\u00e9\u00ff\u0080 token',
    () => '',
  ];
  const spaces = ['', ' ', '  ', '\t', ' \t '];
  const values: Buffer[] = [
    Buffer.alloc(0),
    Buffer.from('   '),
    Buffer.from(`Bearer ${'x'.repeat(8000)}`),
    Buffer.from([0x42, 0x65, 0x61, 0x72, 0x65, 0x72, 0x20, 0xc3, 0xa9, 0xff, 0x80]),
    Buffer.from(`Bearer ${TOKEN}`, 'utf16le'),
    Buffer.from(`\u00a0Bearer ${TOKEN}`, 'utf8'),
  ];
  while (values.length < count) {
    values.push(Buffer.from(`${pick(spaces)}${pick(schemes)}${pick(spaces)}${pick(bodies)()}${pick(spaces)}`, pick(['utf8', 'latin1'] as const)));
  }
  return values;
}

test('fuzzed Authorization values (empty, other schemes, odd spaces, very long, non-ASCII bytes): all 401, no crash', async ({ api }) => {
  const statuses = new Map<string, number>();
  for (const value of fuzzedAuthorizations(150)) {
    const status = await rawStatus(api.baseUrl, '/workflow/list', value);
    statuses.set(status, (statuses.get(status) ?? 0) + 1);
    // 400 is node's own answer to header bytes HTTP forbids (a bare control character): refused before any handler.
    assert.ok(/^HTTP\/1\.1 (401|400) /.test(status), `${JSON.stringify(value.toString('latin1').slice(0, 40))} got ${status}`);
  }
  assert.ok((statuses.get('HTTP/1.1 401 Unauthorized') ?? 0) > 100, `mostly 401: ${JSON.stringify([...statuses])}`);
  // Still serving, and the token still works.
  expectStatus(await http(api, 'GET', '/workflow/list', { headers: RIGHT }), 200);
  for (const line of api.logs) assert.not.ok(JSON.stringify(line).includes(TOKEN), 'no log line carries the token');
});

test.run();

const off = contractSuite('auth off');

off('without API_AUTH_TOKEN requests are accepted, with or without an Authorization header', async ({ api }) => {
  expectStatus(await http(api, 'GET', '/workflow/list'), 200);
  expectStatus(await http(api, 'GET', '/workflow/list', { headers: { authorization: 'Bearer anything' } }), 200);
  const run = await http(api, 'POST', '/workflow/run', { json: { workflowName: 'echo', input: { message: 'open' } } });
  expectStatus(run, 200);
  assert.is(run.body.status, 'completed');
  assert.ok(
    api.logs.some((line) => line.level === 'warn' && /API_AUTH_TOKEN/.test(line.msg)),
    'the start-up log warns that authentication is off',
  );
});

off.run();
