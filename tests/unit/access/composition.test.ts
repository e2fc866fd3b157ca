// API keys as the composition takes them (docs/security.md): createFlowgate's `apiKeys` beside API_AUTH_TOKEN, and a
// key file or entries that cannot be used, with which neither createFlowgate nor the server starts.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { AccessKeyFileError, createFlowgate } from '../../../composition/embed/index.js';
import { startFlowgateServer } from '../../../composition/server.js';
import * as basic from '../../fixtures/workflows/basic.js';
import { CapturingLogger } from '../../support/logLines.js';
import { TestKeyFile, testKey } from '../../support/keyFiles.js';

const EXAMPLES = fileURLToPath(new URL('../../../examples/workflows/', import.meta.url));
const reader = testKey('dashboard', ['read']);
const starter = testKey('ci', ['start'], { workflows: ['echo'] });

async function call(handler: (request: Request) => Promise<Response>, method: string, path: string, headers: Record<string, string>, json?: unknown) {
  const response = await handler(
    new Request(`http://127.0.0.1${path}`, {
      method,
      headers: { ...headers, ...(json === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(json === undefined ? {} : { body: JSON.stringify(json) }),
    }),
  );
  return { status: response.status, body: (await response.json()) as Record<string, any> };
}

test("createFlowgate's apiKeys: each key does what its scopes and limits say; the token stays the key with every scope", async () => {
  const flowgate = await createFlowgate({
    workflows: Object.values(basic),
    authToken: 'embed-admin-token',
    apiKeys: [reader.entry, starter.entry],
    logger: new CapturingLogger(),
    env: { ENGINE: 'memory' },
  });
  try {
    const handler = flowgate.fetchHandler;
    const list = await call(handler, 'GET', '/workflow/list', reader.headers);
    assert.is(list.status, 200);
    assert.ok(list.body.workflows.length > 1, 'the reader sees every workflow');
    const refused = await call(handler, 'POST', '/workflow', reader.headers, { workflowName: 'echo', input: { message: 'x' } });
    assert.is(refused.status, 403);
    assert.is(refused.body.error, 'ForbiddenError');
    assert.match(refused.body.message, /"start" scope/);
    const started = await call(handler, 'POST', '/workflow', starter.headers, { workflowName: 'echo', input: { message: 'x' } });
    assert.is(started.status, 200);
    const other = await call(handler, 'POST', '/workflow', starter.headers, { workflowName: 'sleeper', input: { ms: 1 } });
    assert.is(other.status, 403);
    assert.match(other.body.message, /may not use workflow "sleeper"/);
    assert.is((await call(handler, 'GET', '/workflow/list', starter.headers)).status, 403, 'the starter cannot read');
    assert.is((await call(handler, 'GET', '/workflow/list', { authorization: 'Bearer embed-admin-token' })).status, 200);
    assert.is((await call(handler, 'GET', '/workflow/list', {})).status, 401);
  } finally {
    await flowgate.close();
  }
});

test('createFlowgate refuses apiKeys it cannot use, naming the entry; reusing the token\'s id or secret too', async () => {
  const cases: [unknown[], RegExp][] = [
    [[reader.entry, { ...starter.entry, id: 'dashboard' }], /createFlowgate apiKeys: keys\[1\] \(id "dashboard"\): id is already used by keys\[0\]/],
    [[{ ...reader.entry, scopes: ['read', 'deploy'] }], /keys\[0\] \(id "dashboard"\): scopes\[1\] is "deploy", not a scope/],
    [[{ ...reader.entry, id: 'token' }], /keys\[0\] \(id "token"\): id is already used by API_AUTH_TOKEN/],
  ];
  for (const [apiKeys, expected] of cases) {
    const error = await createFlowgate({
      workflows: Object.values(basic),
      authToken: 'embed-admin-token',
      apiKeys: apiKeys as never,
      logger: new CapturingLogger(),
      env: { ENGINE: 'memory' },
    }).then(
      async (flowgate) => {
        await flowgate.close();
        return undefined;
      },
      (reason: unknown) => reason,
    );
    assert.instance(error, AccessKeyFileError);
    assert.match((error as Error).message, expected);
  }
});

test("createFlowgate's apiKeys and its key file share no id and no secret, at start and through reloads", async () => {
  const operator = testKey('operator', ['control']);
  const file = new TestKeyFile([{ ...operator, entry: { ...operator.entry, id: 'dashboard' } }]);
  try {
    const options = { workflows: Object.values(basic), apiKeysFile: file.path, logger: new CapturingLogger(), env: { ENGINE: 'memory' } };
    const refused = await createFlowgate({ ...options, apiKeys: [reader.entry] }).then(
      async (flowgate) => void (await flowgate.close()),
      (reason: unknown) => reason,
    );
    assert.instance(refused, AccessKeyFileError);
    assert.match((refused as Error).message, /^API_KEYS_FILE .*keys\[0\] \(id "dashboard"\): id is already used by createFlowgate apiKeys\[0\]$/);

    file.write([operator]);
    const logger = new CapturingLogger();
    const flowgate = await createFlowgate({ ...options, logger, apiKeys: [reader.entry] });
    try {
      const status = async (key: typeof reader) => (await call(flowgate.fetchHandler, 'GET', '/workflow/runs', key.headers)).status;
      assert.equal([await status(reader), await status(operator)], [200, 403]);
      file.write([operator, { ...starter, entry: { ...starter.entry, sha256: reader.entry.sha256 } }]);
      assert.is(await flowgate.reloadAccessKeys(), 'kept');
      assert.match(String(logger.lines.at(-1)!.error), /keys\[1\] \(id "ci"\): sha256 is the same secret as createFlowgate apiKeys\[0\]'s/);
      file.write([]);
      assert.is(await flowgate.reloadAccessKeys(), 'reloaded');
      assert.equal([await status(reader), await status(operator)], [200, 401], 'the given key stays when the file revokes its own');
    } finally {
      await flowgate.close();
    }
  } finally {
    file.remove();
  }
});

test('the server does not start with a key file it cannot use: one line naming the file and the entry', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'fg-keyfile-start-'));
  const keysFile = join(dir, 'keys.json');
  const env = { PORT: '0', API_KEYS_FILE: keysFile, DATA_DIR: join(dir, 'data'), TRACE_DIR: join(dir, 'traces'), WORKFLOWS_DIR: EXAMPLES };
  try {
    const refusals: [string, RegExp][] = [
      [JSON.stringify({ keys: [reader.entry, { ...starter.entry, id: 'dashboard' }] }), /keys\[1\] \(id "dashboard"\): id is already used by keys\[0\]/],
      [JSON.stringify({ keys: [{ ...reader.entry, scopes: ['write'] }] }), /keys\[0\] \(id "dashboard"\): scopes\[0\] is "write", not a scope/],
      [JSON.stringify({ keys: [{ ...reader.entry, sha256: 'not-a-hash' }] }), /keys\[0\] \(id "dashboard"\): sha256 is not a SHA-256 in hex/],
      [JSON.stringify({ keys: [{ ...reader.entry, sha256: 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855' }] }), /keys\[0\] \(id "dashboard"\): sha256 is the SHA-256 of an empty secret/],
      ['', /not JSON \(it is empty\)/],
    ];
    for (const [text, expected] of refusals) {
      await writeFile(keysFile, text);
      const error = await startFlowgateServer({ env, logger: new CapturingLogger() }).then(
        async (server) => {
          await server.close();
          return undefined;
        },
        (reason: unknown) => reason,
      );
      assert.instance(error, AccessKeyFileError, text);
      const message = (error as Error).message;
      assert.ok(message.startsWith(`API_KEYS_FILE ${keysFile}: `), message);
      assert.match(message, expected);
      assert.not.match(message, /\n/);
    }
    // Nothing was left holding the data directory: the same server starts once the file is fixed.
    await writeFile(keysFile, JSON.stringify({ keys: [reader.entry] }));
    const server = await startFlowgateServer({ env, logger: new CapturingLogger() });
    await server.close();
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test.run();
