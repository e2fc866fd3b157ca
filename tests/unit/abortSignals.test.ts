import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { linkSignals } from '../../core/domain/abortSignals.js';
import { awaitOutcomeUnlessAborted } from '../../core/useCases/awaitRun.js';
import { FakeEngine } from '../support/fakeEngine.js';
import { signalHolds } from '../support/signalHolds.js';

test('linkSignals: aborts with the reason of the first source that aborts, and lets go of every source then', () => {
  const shutdown = new AbortController();
  const request = new AbortController();
  const linked = linkSignals([shutdown.signal, request.signal]);
  assert.is(linked.signal.aborted, false);
  assert.is(signalHolds(shutdown.signal).listeners, 1);
  request.abort(new Error('client left'));
  assert.is(linked.signal.aborted, true);
  assert.is((linked.signal.reason as Error).message, 'client left');
  assert.equal([signalHolds(shutdown.signal), signalHolds(request.signal)], [{ listeners: 0, dependants: 0 }, { listeners: 0, dependants: 0 }]);
  shutdown.abort(new Error('later'));
  assert.is((linked.signal.reason as Error).message, 'client left', 'the first reason stays');
});

test('linkSignals: a source aborted already aborts it at once; unlink lets go of the sources and stops them reaching it', () => {
  const gone = new AbortController();
  gone.abort(new Error('already'));
  const early = linkSignals([new AbortController().signal, gone.signal]);
  assert.is((early.signal.reason as Error).message, 'already');

  const shutdown = new AbortController();
  const linked = linkSignals([shutdown.signal]);
  linked.unlink();
  linked.unlink();
  assert.equal(signalHolds(shutdown.signal), { listeners: 0, dependants: 0 });
  shutdown.abort();
  assert.is(linked.signal.aborted, false, 'unlinked: the source no longer reaches it');
});

test("a result long-poll links to the server's shutdown signal and lets go when it ends (Node 22 kept what AbortSignal.any made)", async () => {
  const shutdown = new AbortController();
  const engine = new FakeEngine({ awaitOutcome: async () => undefined });
  for (let wait = 0; wait < 100; wait += 1) {
    const client = new AbortController();
    assert.is(await awaitOutcomeUnlessAborted(engine, { workflowId: 'w', runId: 'r' }, { timeoutMs: 1 }, [client.signal, shutdown.signal]), 'timeout');
  }
  assert.equal(signalHolds(shutdown.signal), { listeners: 0, dependants: 0 });

  // Still linked while it waits: the shutdown ends the wait.
  const waiting = awaitOutcomeUnlessAborted(
    new FakeEngine({ awaitOutcome: (_run, options) => new Promise((_, reject) => options.signal!.addEventListener('abort', () => reject(options.signal!.reason))) }),
    { workflowId: 'w', runId: 'r' },
    { timeoutMs: 60_000 },
    [new AbortController().signal, shutdown.signal],
  );
  shutdown.abort(new Error('shutting down'));
  assert.is(await waiting, 'aborted');
});

test.run();
