import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { status as GrpcStatus } from '@grpc/grpc-js';
import proto from '@temporalio/proto';
import type { GrpcCallError } from '../../../adapters/temporal/http2/grpcStatus.js';
import { Http2Connection } from '../../../adapters/temporal/http2/http2Connection.js';
import { answer, CERT, fail, fakeServer, type Seen } from '../../support/fakeGrpcServer.js';

// The Temporal client's Connection on the HTTP/2 transport against a loopback server that answers as Temporal's
// frontend would: what its calls carry (TLS, the API key, the namespace, the authority), and the options it refuses.

const connectionSuite = suite('Http2Connection: the Temporal client over the HTTP/2 transport');

const { GetSystemInfoResponse, DescribeWorkflowExecutionRequest, DescribeWorkflowExecutionResponse } = proto.temporal.api.workflowservice.v1;

/** Enough of Temporal's frontend for a connection: the system info asked at connect, and describe. */
function temporalFrontend({ stream, headers, body }: Seen): void {
  const path = String(headers[':path']);
  if (path.endsWith('/GetSystemInfo')) return answer(stream, GetSystemInfoResponse.encode({ serverVersion: 'fake' }).finish());
  if (path.endsWith('/DescribeWorkflowExecution')) {
    const request = DescribeWorkflowExecutionRequest.decode(body.subarray(5));
    if (request.execution?.workflowId === 'missing') return fail(stream, GrpcStatus.NOT_FOUND, 'workflow not found for ID: missing');
    return answer(stream, DescribeWorkflowExecutionResponse.encode({ workflowExecutionInfo: { execution: request.execution, type: { name: 'echo' } } }).finish());
  }
  fail(stream, GrpcStatus.UNIMPLEMENTED, `unknown method ${path}`);
}

connectionSuite('over TLS with an API key: the service calls carry the key, the namespace and the client name, and decode', async () => {
  const server = await fakeServer(temporalFrontend, { tls: true });
  const connection = await Http2Connection.connect({
    address: server.address,
    apiKey: 'key-1',
    tls: { serverRootCACertificate: CERT, serverNameOverride: 'localhost' },
    interceptors: [],
  });
  try {
    const response = await connection.withDeadline(Date.now() + 5000, () =>
      connection.workflowService.describeWorkflowExecution({ namespace: 'ns-2', execution: { workflowId: 'wf-1' } }),
    );
    assert.is(response.workflowExecutionInfo?.type?.name, 'echo');
    assert.is(response.workflowExecutionInfo?.execution?.workflowId, 'wf-1');
    const describe = server.seen.find(({ headers }) => String(headers[':path']).endsWith('/DescribeWorkflowExecution'))!;
    assert.is(describe.headers[':path'], '/temporal.api.workflowservice.v1.WorkflowService/DescribeWorkflowExecution');
    assert.is(describe.headers.authorization, 'Bearer key-1');
    assert.is(describe.headers['temporal-namespace'], 'ns-2');
    assert.is(describe.headers['client-name'], 'temporal-typescript');
    assert.ok(describe.headers['grpc-timeout'], 'the deadline is sent');
    assert.is(describe.headers[':authority'], 'localhost', 'the name override is the authority, as grpc-js sends it');
    // A call's own key wins over the connection's, as in the SDK.
    await connection.withApiKey('key-2', () => connection.workflowService.describeWorkflowExecution({ namespace: 'ns-2', execution: { workflowId: 'wf-2' } }));
    assert.is(server.seen.at(-1)!.headers.authorization, 'Bearer key-2');
    // Metadata gRPC does not allow is refused by name before anything is sent.
    const seenBefore = server.seen.length;
    const refused = (await connection
      .withMetadata({ 'x-note': 'two\nlines' }, () => connection.workflowService.describeWorkflowExecution({ namespace: 'ns-2', execution: { workflowId: 'wf-3' } }))
      .catch((failure: unknown) => failure)) as Error;
    assert.instance(refused, TypeError);
    assert.match(refused.message, /gRPC metadata "x-note" has a value with characters outside printable ASCII/);
    assert.is(server.seen.length, seenBefore);
    const error = (await connection.workflowService
      .describeWorkflowExecution({ namespace: 'ns-2', execution: { workflowId: 'missing' } })
      .catch((failure: unknown) => failure)) as GrpcCallError;
    assert.is(error.code, GrpcStatus.NOT_FOUND);
  } finally {
    await connection.close();
    await server.close();
  }
});

connectionSuite('a server whose certificate is not trusted: the connect fails within its timeout, naming the reason', async () => {
  const server = await fakeServer(temporalFrontend, { tls: true });
  try {
    const error = (await Http2Connection.connect({ address: server.address, tls: true, connectTimeout: 1500, interceptors: [] }).catch((failure: unknown) => failure)) as Error;
    assert.instance(error, Error);
    assert.match(error.message, /^Failed to connect before the deadline: .*(self-signed|certificate)/, error.message);
    assert.is(server.seen.length, 0);
  } finally {
    await server.close();
  }
});

connectionSuite('options it cannot honour are refused by name: grpc-js credentials and interceptors', () => {
  assert.throws(() => Http2Connection.lazy({ address: '127.0.0.1:1', interceptors: [() => ({}) as never] }), /gRPC interceptors \(grpc-js\) cannot be used/);
  assert.throws(() => Http2Connection.lazy({ address: '127.0.0.1:1', credentials: {} as never }), /grpc-js credentials cannot be used; give `tls` and `apiKey` instead/);
});

connectionSuite.run();
