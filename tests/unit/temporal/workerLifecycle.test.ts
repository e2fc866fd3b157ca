import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Worker } from '@temporalio/worker';
import { WorkerLifecycle } from '../../../adapters/temporal/worker/workerLifecycle.js';
import type { CatalogPublisher } from '../../../adapters/temporal/worker/catalogPublisher.js';
import { CapturingLogger, type LogLine } from '../../support/logLines.js';

/*
 * The lifecycle around Temporal's Worker, with the Worker and the catalog publisher played by stand-ins: a worker that
 * fails fatally at a chosen moment cannot be had from a real one on demand.
 */

function failingWorker(failure: Error): Worker {
  let state = 'RUNNING';
  return {
    run: () => {
      state = 'FAILED';
      return Promise.reject(failure);
    },
    getState: () => state,
    shutdown: () => {},
  } as unknown as Worker;
}

function slowPublisher(ms: number): CatalogPublisher {
  return {
    publish: () => new Promise<void>((resolve) => setTimeout(resolve, ms)),
    goOffline: async () => {},
    waitUntilListed: async () => true,
  } as unknown as CatalogPublisher;
}

test('a worker that fails while its catalog is being published: run() rejects with its error, and nothing is left unhandled', async () => {
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown): void => void unhandled.push(reason);
  process.on('unhandledRejection', onUnhandled);
  try {
    const failure = new Error('Workflow Worker Thread exited prematurely');
    const logs: LogLine[] = [];
    let closed = 0;
    const lifecycle = new WorkerLifecycle('worker-1', failingWorker(failure), slowPublisher(50), new CapturingLogger(logs), async () => {
      closed += 1;
    });
    const outcome = await lifecycle.run().then(
      () => undefined,
      (error: unknown) => error,
    );
    assert.is(outcome, failure, "run() rejects with the worker's own error");
    assert.is(closed, 1, 'the connections were closed');
    // A rejection is reported unhandled after the turn it happened in.
    await new Promise((resolve) => setTimeout(resolve, 10));
    assert.equal(unhandled, [], 'no rejection was left without a handler (Node would end the process on it)');
    await lifecycle.shutdown();
  } finally {
    process.off('unhandledRejection', onUnhandled);
  }
});

test.run();
