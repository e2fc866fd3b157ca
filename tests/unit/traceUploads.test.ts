import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { recordTrace, type ClosedRunRecord } from '../../core/trace/recordTrace.js';
import { locateTrace, TRACE_LOOKUP_WAIT_MS } from '../../core/trace/locateTrace.js';
import { TraceUploads } from '../../core/trace/traceUploads.js';
import type { TraceKey, TraceRecord } from '../../core/domain/trace.js';
import type { TraceStore } from '../../ports/traceStore.js';
import { flush } from './embedded/support.js';
import { ManualClock } from '../support/manualClock.js';
import { CapturingLogger } from '../support/logLines.js';

/** A store whose calls wait until the test lets them go. */
class HeldStore implements TraceStore {
  readonly written: string[] = [];
  private readonly held: (() => void)[] = [];
  constructor(readonly kind: 'local' | 'remote') {}
  write(key: TraceKey, _trace: TraceRecord): Promise<string> {
    return new Promise((resolve) =>
      this.held.push(() => {
        this.written.push(key.runId);
        resolve(`${this.kind}://${key.runId}`);
      }),
    );
  }
  locate(key: TraceKey): Promise<string | undefined> {
    return new Promise((resolve) => this.held.push(() => resolve(`${this.kind}://${key.runId}`)));
  }
  async read(): Promise<TraceRecord | undefined> {
    return undefined;
  }
  release(): void {
    for (const go of this.held.splice(0)) go();
  }
}

const instantLocal: TraceStore = {
  kind: 'local',
  write: async (key) => `/traces/${key.runId}`,
  locate: async (key) => `/traces/${key.runId}`,
  read: async () => undefined,
};

function closedRun(runId: string): ClosedRunRecord {
  const at = new Date(Date.UTC(2026, 0, 1));
  return {
    run: { workflowId: `wf-${runId}`, runId, workflowName: 'echo', catalog: 'main', status: 'completed', startedAt: at, closedAt: at, firstRunId: runId },
    input: {},
    output: {},
    failure: null,
    steps: [],
  };
}

test('a stalled upload holds the close for waitMs, then finishes in the background and is logged; settle waits for it', async () => {
  const clock = new ManualClock();
  const logger = new CapturingLogger();
  const remote = new HeldStore('remote');
  const uploads = new TraceUploads({ clock, logger, waitMs: 2_000 });
  let closed = false;
  const recording = recordTrace({ local: instantLocal, remote }, logger, closedRun('r1'), uploads).then(() => (closed = true));
  await clock.advance(1_999);
  assert.is(closed, false, 'still within the wait');
  await clock.advance(1);
  await recording;
  assert.is(uploads.size, 1);
  assert.ok(logger.entries.some((line) => line.message === 'trace upload still running; the run closes without waiting for it' && line.fields?.runId === 'r1'));
  const settled = uploads.settle(10_000);
  remote.release();
  assert.is(await settled, 0);
  assert.equal(remote.written, ['r1']);
  assert.ok(logger.entries.some((line) => line.message === 'trace uploaded after its run closed' && line.fields?.location === 'remote://r1'));
});

test('a quick upload is waited for and logs nothing', async () => {
  const clock = new ManualClock();
  const logger = new CapturingLogger();
  const remote = new HeldStore('remote');
  const uploads = new TraceUploads({ clock, logger });
  const recording = recordTrace({ local: instantLocal, remote }, logger, closedRun('r2'), uploads);
  await flush();
  remote.release();
  await recording;
  assert.is(uploads.size, 0);
  assert.equal(logger.entries, []);
});

test('beyond maxPending uploads a trace is not uploaded at all, and that is logged as a failed write', async () => {
  const clock = new ManualClock();
  const logger = new CapturingLogger();
  const remote = new HeldStore('remote');
  const uploads = new TraceUploads({ clock, logger, waitMs: 10, maxPending: 1 });
  const first = recordTrace({ remote }, logger, closedRun('a'), uploads);
  await clock.advance(10);
  await first;
  await recordTrace({ remote }, logger, closedRun('b'), uploads);
  const refused = logger.entries.find((line) => line.message === 'trace write failed' && line.fields?.runId === 'b');
  assert.match(String(refused?.fields?.error), /1 earlier uploads are still running/);
  const settled = uploads.settle(5);
  await clock.advance(5);
  assert.is(await settled, 1, 'settle gives up after its timeout');
  remote.release();
});

test('a lookup that does not answer within TRACE_LOOKUP_WAIT_MS counts as no destination', async () => {
  const clock = new ManualClock();
  const logger = new CapturingLogger();
  const remote = new HeldStore('remote');
  const key: TraceKey = { workflowId: 'wf', runId: 'r3', workflowName: 'echo', startedAt: new Date(0) };
  const located = locateTrace({ local: instantLocal, remote }, key, logger, clock);
  await clock.advance(TRACE_LOOKUP_WAIT_MS);
  assert.equal(await located, { local: '/traces/r3' });
  assert.ok(logger.entries.some((line) => line.message === 'trace store lookup timed out'));
  remote.release();
});

test.run();
