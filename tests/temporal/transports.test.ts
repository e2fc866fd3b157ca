// Both transports of the API's Temporal client against the real dev server: node:http2 (the default) and the SDK's
// grpc-js (TEMPORAL_GRPC_TRANSPORT=grpc-js, or a proxy variable set). Each starts, describes and terminates a run, and
// reads the server's errors as the SDK's named errors.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { randomUUID } from 'node:crypto';
import { Client, WorkflowExecutionAlreadyStartedError, WorkflowNotFoundError } from '@temporalio/client';
import { connectTemporal } from '../../adapters/temporal/connection.js';
import { Http2Connection } from '../../adapters/temporal/http2/http2Connection.js';

const address = process.env.TEMPORAL_ADDRESS;
const namespace = process.env.TEMPORAL_NAMESPACE ?? 'default';

for (const transport of ['http2', 'grpc-js'] as const) {
  test(`transport ${transport}: start, describe, a duplicate start and a missing run read as the SDK's errors, terminate`, async () => {
    if (!address) throw new Error('tests/temporal/transports.test.ts needs TEMPORAL_ADDRESS');
    const connection = await connectTemporal({ address, maxMessageBytes: 4 * 1024 * 1024, transport });
    try {
      assert.is(connection instanceof Http2Connection, transport === 'http2');
      const client = new Client({ connection, namespace });
      const workflowId = `transport-${transport}-${randomUUID()}`;
      // No worker serves this task queue: the run stays running until it is terminated.
      const options = { taskQueue: 'flowgate-transport-test', workflowId, args: [{ héllo: 'wörld' }] };
      const handle = await client.workflow.start('nobodyServesThis', options);
      const description = await handle.describe();
      assert.is(description.status.name, 'RUNNING');
      assert.is(description.type, 'nobodyServesThis');
      assert.instance(await failureOf(client.workflow.start('nobodyServesThis', options)), WorkflowExecutionAlreadyStartedError);
      assert.instance(await failureOf(client.workflow.getHandle(`missing-${randomUUID()}`).describe()), WorkflowNotFoundError);
      await handle.terminate('transport test');
      assert.is((await handle.describe()).status.name, 'TERMINATED');
    } finally {
      await connection.close();
    }
  });
}

function failureOf(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => new Error('it succeeded'),
    (error: unknown) => error,
  );
}

test.run();
