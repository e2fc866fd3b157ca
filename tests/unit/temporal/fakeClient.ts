// A stand-in for @temporalio/client's Client where the pure tests need one: the raw workflowService methods they
// exercise answer from functions the test gives, and every request is recorded. Deadlines are ignored; an abort
// cancels the request in flight with gRPC CANCELLED, as on the real client.
import type { Client } from '@temporalio/client';
import { TemporalCalls } from '../../../adapters/temporal/engine/calls.js';
import type { Clock } from '../../../ports/clock.js';

export type ServiceHandler = (request: any) => Promise<any> | any;

export class FakeClient {
  readonly options = { identity: 'fake-client' };
  readonly requests: { method: string; request: any }[] = [];
  readonly workflowService: Record<string, ServiceHandler>;
  readonly workflow = {
    start: async () => {
      throw new Error('not faked');
    },
  };

  constructor(handlers: Record<string, ServiceHandler>) {
    this.workflowService = new Proxy(handlers, {
      get: (target, method: string) => async (request: unknown) => {
        this.requests.push({ method, request });
        const handler = target[method];
        if (!handler) throw new Error(`FakeClient: workflowService.${method} is not faked`);
        return handler(request);
      },
    });
  }

  count(method: string): number {
    return this.requests.filter((entry) => entry.method === method).length;
  }

  withDeadline<T>(_deadline: number | Date, fn: () => Promise<T>): Promise<T> {
    return fn();
  }

  /** Like the real client: an abort fails the request in flight with gRPC CANCELLED. */
  withAbortSignal<T>(signal: AbortSignal, fn: () => Promise<T>): Promise<T> {
    let cancel!: () => void;
    const cancelled = new Promise<never>((_, reject) => {
      cancel = () => reject(Object.assign(new Error('1 CANCELLED: Cancelled on client'), { code: 1, details: 'Cancelled on client', metadata: {} }));
      if (signal.aborted) cancel();
      else signal.addEventListener('abort', cancel, { once: true });
    });
    // A request that ended leaves nothing on the signal (a follower's signal lives through thousands of requests).
    return Promise.race([fn(), cancelled]).finally(() => signal.removeEventListener('abort', cancel));
  }

  asClient(): Client {
    return this as unknown as Client;
  }

  /** Calls with a 1 s deadline, measured by `clock` when given (a test counting throttled attempts gives a manual one). */
  calls(namespace = 'default', clock?: Clock): TemporalCalls {
    return new TemporalCalls(this.asClient(), namespace, 1000, undefined, clock);
  }
}
