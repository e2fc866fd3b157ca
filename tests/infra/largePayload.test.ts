// 30 MiB payloads through a real Temporal server: workflow input, activity result and workflow result. A stock dev
// server refuses any gRPC request over 4 MiB, so this runs on the large-message CLI build (scripts/infra/README.md),
// which is built on first use (a few minutes).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { fileURLToPath } from 'node:url';
import { Client, Connection } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import { startTemporalDevServer, type TemporalDevServer } from '../../scripts/infra/index.mjs';

const MIB = 1024 * 1024;
const SIZE = 30 * MIB;
// @temporalio/client 1.24 sets its 128 MiB default under the key `max_receive_message_length`, which grpc-js ignores;
// without the `grpc.`-prefixed key a client cannot receive more than 4 MiB.
const LARGE_MESSAGE_CHANNEL_ARGS = { 'grpc.max_receive_message_length': 128 * MIB, 'grpc.max_send_message_length': 128 * MIB };

let server: TemporalDevServer | undefined;

test.before(() => {
  // The worker logs a warning for every payload over 512 KiB; here they are the point of the test.
  Runtime.install({ logger: new DefaultLogger('ERROR'), telemetryOptions: { logging: { filter: { core: 'ERROR', other: 'ERROR' }, forward: {} } } });
});

test.after(async () => {
  await server?.stop();
});

test('a 30 MiB input, activity result and workflow result round-trip', async () => {
  server = await startTemporalDevServer({ largeMessages: true, log: () => {} });
  const taskQueue = `large-payload-${Date.now()}`;
  const workerConnection = await NativeConnection.connect({ address: server.address });
  const connection = await Connection.connect({ address: server.address, channelArgs: LARGE_MESSAGE_CHANNEL_ARGS });
  try {
    const worker = await Worker.create({
      connection: workerConnection,
      taskQueue,
      workflowsPath: fileURLToPath(new URL('./fixtures/largePayloadWorkflows.ts', import.meta.url)),
      activities: { makePayload: async (size: number) => 'a'.repeat(size) },
    });
    const input = 'i'.repeat(SIZE);
    const result = await worker.runUntil(
      new Client({ connection }).workflow.execute('largeRoundTrip', {
        taskQueue,
        workflowId: `large-payload-${Date.now()}`,
        args: [input],
        workflowExecutionTimeout: '3 minutes',
      }),
    );
    assert.is(result.activityResultLength, SIZE);
    assert.is(result.echoed.length, SIZE);
    assert.ok(result.echoed === input, 'the echoed input is byte-identical');
  } finally {
    await connection.close();
    await workerConnection.close();
  }
});

test.run();
