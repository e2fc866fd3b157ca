// The Temporal dev server the Temporal-engine tests run against: it starts on free loopback ports, serves the
// `default` namespace, restarts on the same address (what a "Temporal went away and came back" test needs), keeps
// state across restarts when given a database file, and leaves nothing listening once stopped.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { connect as tcpConnect } from 'node:net';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { ensureTemporalCli, startTemporalDevServer, type TemporalDevServer } from '../../scripts/infra/index.mjs';

const quiet = () => {};
let cliPath = '';
let server: TemporalDevServer | undefined;

async function withConnection<T>(address: string, use: (connection: Connection) => Promise<T>): Promise<T> {
  const connection = await Connection.connect({ address });
  try {
    return await use(connection);
  } finally {
    await connection.close();
  }
}

/** Resolves with the socket error code, or 'connected'. */
function probePort(port: number): Promise<string> {
  return new Promise((resolvePromise) => {
    const socket = tcpConnect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolvePromise('connected');
    });
    socket.once('error', (error: NodeJS.ErrnoException) => resolvePromise(error.code ?? error.message));
  });
}

test.before(async () => {
  cliPath = await ensureTemporalCli({ log: quiet });
});

test.after(async () => {
  await server?.stop();
});

test('starts on free loopback ports and serves the default namespace', async () => {
  server = await startTemporalDevServer({ cliPath, log: quiet });
  assert.match(server.address, /^127\.0\.0\.1:\d+$/);
  assert.is(server.namespace, 'default');
  assert.is(new Set([server.port, server.httpPort, server.metricsPort]).size, 3);
  assert.ok(server.isRunning());

  await withConnection(server.address, async (connection) => {
    const info = await connection.workflowService.getSystemInfo({});
    assert.ok(info.serverVersion, 'getSystemInfo names the server version');
    const namespace = await connection.workflowService.describeNamespace({ namespace: 'default' });
    assert.is(namespace.namespaceInfo?.name, 'default');
    const attributes = await connection.operatorService.listSearchAttributes({ namespace: 'default' });
    assert.ok(attributes.customAttributes?.['FlowgateCatalog'] !== undefined, 'FlowgateCatalog is registered');
  });
});

test('restarts on the same address; an open connection works again afterwards', async () => {
  assert.ok(server, 'the first test started a server');
  const before = server.address;
  const longLived = await Connection.connect({ address: before });
  try {
    await longLived.workflowService.getSystemInfo({});
    await server.restart();
    assert.is(server.address, before);
    assert.ok(server.isRunning());
    await withConnection(server.address, async (connection) => {
      await connection.workflowService.getSystemInfo({});
    });
    // The API server holds one connection for its lifetime; grpc reconnects it once Temporal is back.
    await longLived.workflowService.getSystemInfo({});
  } finally {
    await longLived.close();
  }
});

test('stop closes the port, and stopping twice is harmless', async () => {
  assert.ok(server, 'the first test started a server');
  const { port } = server;
  assert.is(await probePort(port), 'connected');
  await server.stop();
  await server.stop();
  assert.not.ok(server.isRunning());
  assert.is(await probePort(port), 'ECONNREFUSED');
});

test('a server that cannot start fails fast with its own error output', async () => {
  const startedAt = Date.now();
  try {
    await startTemporalDevServer({ cliPath, log: quiet, extraArgs: ['--no-such-flag'] });
    assert.unreachable('the start should have failed');
  } catch (error) {
    assert.instance(error, Error);
    assert.match((error as Error).message, /before it was ready/);
    assert.match((error as Error).message, /unknown flag: --no-such-flag/);
  }
  assert.ok(Date.now() - startedAt < 30_000, 'it does not wait for the readiness time-out');
});

test('a restart that loses a port race to another process launches again on the same address', async () => {
  // A CLI whose second launch fails as the real one does when one of its internal services' ports (picked afresh at
  // each launch) was taken first; every other launch is the real CLI.
  const dir = mkdtempSync(join(tmpdir(), 'flowgate-temporal-race-'));
  const launches = join(dir, 'launches');
  const flaky = join(dir, 'temporal');
  writeFileSync(
    flaky,
    [
      '#!/bin/sh',
      `echo launch >> '${launches}'`,
      `if [ "$(wc -l < '${launches}')" -eq 2 ]; then`,
      '  echo \'level=ERROR msg="Failed to start gRPC listener" error="listen tcp 127.0.0.1:35271: bind: address already in use" service=history\' >&2',
      '  exit 2',
      'fi',
      `exec '${cliPath}' "$@"`,
      '',
    ].join('\n'),
    { mode: 0o755 },
  );
  const logged: string[] = [];
  const racing = await startTemporalDevServer({ cliPath: flaky, log: (line) => logged.push(line) });
  try {
    const before = racing.address;
    await racing.restart();
    assert.is(racing.address, before);
    assert.ok(racing.isRunning());
    await withConnection(racing.address, async (connection) => {
      await connection.workflowService.getSystemInfo({});
    });
    assert.is(readFileSync(launches, 'utf8').trim().split('\n').length, 3, 'launched, lost the race, launched again');
    assert.ok(logged.some((line) => /port was taken/.test(line)), logged.join('\n'));
  } finally {
    await racing.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('with a database file, a running workflow survives stop and start', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'flowgate-temporal-'));
  const persistent = await startTemporalDevServer({ cliPath, log: quiet, dbFilename: join(dir, 'temporal.db') });
  try {
    const workflowId = `survives-restart-${Date.now()}`;
    await withConnection(persistent.address, async (connection) => {
      // No worker polls this queue: the run simply stays open, which is all this test needs.
      await new Client({ connection }).workflow.start('NoSuchWorkflow', { taskQueue: 'nobody-polls-this', workflowId });
    });
    await persistent.stop();
    await persistent.start();
    await withConnection(persistent.address, async (connection) => {
      const description = await new Client({ connection }).workflow.getHandle(workflowId).describe();
      assert.is(description.status.name, 'RUNNING');
    });
  } finally {
    await persistent.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
