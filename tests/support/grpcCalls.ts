// Counts the gRPC calls a Temporal client makes, by method: a grpc-js client interceptor on the connection, so every
// call the SDK sends is seen (the typed client's start and the raw WorkflowService alike), and nothing is changed.
import { Client, Connection } from '@temporalio/client';

/** The calls made since the last `reset`, by method name (`DescribeWorkflowExecution`, ...). */
export class GrpcCallCounter {
  private counts = new Map<string, number>();

  /** A grpc-js interceptor: notes the method of each call, then hands the call on unchanged. */
  readonly interceptor = (options: { method_definition: { path: string } }, nextCall: (options: unknown) => unknown) => {
    const method = options.method_definition.path.split('/').at(-1) ?? options.method_definition.path;
    this.counts.set(method, (this.counts.get(method) ?? 0) + 1);
    return nextCall(options);
  };

  reset(): void {
    this.counts = new Map();
  }

  /** The counts as a plain object with sorted keys, for `assert.equal`. */
  snapshot(): Record<string, number> {
    return Object.fromEntries([...this.counts.entries()].sort(([a], [b]) => a.localeCompare(b)));
  }

  total(): number {
    return [...this.counts.values()].reduce((sum, count) => sum + count, 0);
  }
}

/** A client whose every gRPC call the counter sees. */
export async function countedClient(address: string, namespace: string, counter: GrpcCallCounter): Promise<{ client: Client; connection: Connection }> {
  // The interceptor's types are grpc-js's, which the SDK re-exports only structurally.
  const connection = await Connection.connect({ address, interceptors: [counter.interceptor as never] });
  return { client: new Client({ connection, namespace }), connection };
}
