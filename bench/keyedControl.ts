// Figure 13: keyed feedback, reset and terminate on Temporal beside the same calls without a key, on a run of at least
// 10,000 events (docs/idempotency.md, "What a keyed request costs"). The engine is called directly on a counted
// connection, as tests/temporal/keyedControlCost.test.ts does, so that no API process's own record of a key answers
// in the engine's place; the worker is flowgate's `flowgate worker` on the bench workflows.
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type { Connection } from '@temporalio/client';
import { TemporalEngine } from '../adapters/temporal/index.js';
import { systemClock } from '../adapters/system/index.js';
import type { RequestIdempotency } from '../core/domain/idempotency.js';
import type { PinnedRunRef } from '../core/domain/run.js';
import type { Logger } from '../ports/logger.js';
import { countedClient, GrpcCallCounter } from '../tests/support/grpcCalls.js';
import { startTemporalFlowgate } from './temporalFlowgate.js';

const NAMESPACE = 'default';
const MIN_EVENTS = 10_000;
/** Steps at once: about three events each, so a few rounds make the history; Temporal allows 2,000 pending. */
const BATCH_SIZE = 500;
const BATCHES = Math.ceil(MIN_EVENTS / (3 * BATCH_SIZE)) + 1;
const REPETITIONS = 5;
const STEP = 'bench_add_one';
const BUILD_TIMEOUT_MS = 10 * 60_000;
const quiet: Logger = { info() {}, warn() {}, error() {} };

interface Timed {
  ms: number;
  calls: Record<string, number>;
}

interface CallCost {
  call: string;
  unkeyed: Timed[];
  keyed: Timed[];
  retry: Timed[];
}

export interface KeyedControlFigure {
  title: string;
  table: string[][];
  verdict: string;
}

/** A request's key as the core hands it to an engine; a new object each time, as a retry through another replica. */
function keyed(key: string, fingerprint: string): RequestIdempotency {
  return { key, fingerprint, retentionMs: 60 * 60_000, requestedAt: new Date(), recognised() {} };
}

class KeyedControlBench {
  readonly feedback: CallCost = { call: 'feedback', unkeyed: [], keyed: [], retry: [] };
  readonly reset: CallCost = { call: 'reset to after the last step', unkeyed: [], keyed: [], retry: [] };
  readonly terminate: CallCost = { call: 'terminate', unkeyed: [], keyed: [], retry: [] };
  /** The fewest events among the runs the calls were sent to. */
  smallestHistory = Number.POSITIVE_INFINITY;

  constructor(
    private readonly engine: TemporalEngine,
    private readonly connection: Connection,
    private readonly counter: GrpcCallCounter,
    private readonly log: (line: string) => void,
  ) {}

  /** The run of `bench_long_history`, its steps done and waiting for replies, and the seconds it took to build. */
  async longRun(): Promise<{ run: PinnedRunRef; seconds: number }> {
    const began = performance.now();
    const input = { batches: BATCHES, batchSize: BATCH_SIZE, replies: 100_000 };
    const started = await this.engine.start({ catalog: 'main', workflowName: 'bench_long_history', workflowId: `bench-keyed-${randomUUID()}`, input });
    const run = { workflowId: started.workflowId, runId: started.runId };
    await this.idle(run, MIN_EVENTS, BUILD_TIMEOUT_MS);
    return { run, seconds: (performance.now() - began) / 1000 };
  }

  /**
   * Waits, uncounted and untimed, until no workflow or activity task of the run is pending: a call measured while the
   * worker still works on the last one (a reset run's first replay, a reply's workflow task) would time that work.
   */
  async idle(run: PinnedRunRef, minEvents = 0, timeoutMs = 120_000): Promise<number> {
    for (const deadline = Date.now() + timeoutMs; ; ) {
      const described = await this.connection.workflowService.describeWorkflowExecution({ namespace: NAMESPACE, execution: run });
      const events = Number(described.workflowExecutionInfo?.historyLength ?? 0);
      const idle = !described.pendingWorkflowTask && (described.pendingActivities ?? []).length === 0;
      if (idle && events >= minEvents) return events;
      if (Date.now() > deadline) throw new Error(`run ${run.runId} was not idle with ${minEvents} events in ${timeoutMs} ms (${events} events)`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }

  /** One call timed and its gRPC calls counted, once `run` is idle; notes the run's history length. */
  async timed<T>(into: Timed[], run: PinnedRunRef, action: () => Promise<T>): Promise<T> {
    this.smallestHistory = Math.min(this.smallestHistory, await this.idle(run));
    this.counter.reset();
    const began = performance.now();
    const result = await action();
    into.push({ ms: performance.now() - began, calls: this.counter.snapshot() });
    return result;
  }

  /** Replies to the waiting run, alternately without a key first and with one first; a keyed retry each time. */
  async measureFeedback(run: PinnedRunRef): Promise<void> {
    const latest = { workflowId: run.workflowId, runId: run.runId };
    for (let repetition = 0; repetition < REPETITIONS; repetition++) {
      const key = randomUUID();
      const unkeyed = () => this.timed(this.feedback.unkeyed, latest, () => this.engine.deliverFeedback(run.workflowId, { repetition }));
      const withKey = () => this.timed(this.feedback.keyed, latest, () => this.engine.deliverFeedback(run.workflowId, { repetition }, keyed(key, 'feedback')));
      if (repetition % 2 === 0) await unkeyed().then(withKey);
      else await withKey().then(unkeyed);
      await this.timed(this.feedback.retry, latest, () => this.engine.deliverFeedback(run.workflowId, { repetition }, keyed(key, 'feedback')));
    }
    this.log(`figure 13: feedback measured (${REPETITIONS} repetitions)`);
  }

  /**
   * Resets the long run to after its last step, which makes a run of as many events, then terminates that run, the
   * unkeyed pair and the keyed one (with a retry of each) in alternating order. Each reset starts from the same run.
   */
  async measureResetAndTerminate(base: PinnedRunRef): Promise<void> {
    const unkeyedPair = async () => {
      const made = await this.timed(this.reset.unkeyed, base, () => this.engine.reset(base, STEP, 'bench'));
      await this.timed(this.terminate.unkeyed, made, () => this.engine.terminate(made, 'bench'));
    };
    const keyedPair = async () => {
      const resetKey = randomUUID();
      const made = await this.timed(this.reset.keyed, base, () => this.engine.reset(base, STEP, 'bench', keyed(resetKey, 'reset')));
      const again = await this.timed(this.reset.retry, made, () => this.engine.reset(base, STEP, 'bench', keyed(resetKey, 'reset')));
      if (again.runId !== made.runId) throw new Error(`a keyed reset retried made another run: ${made.runId}, then ${again.runId}`);
      const terminateKey = randomUUID();
      await this.timed(this.terminate.keyed, made, () => this.engine.terminate(made, 'bench', keyed(terminateKey, 'terminate')));
      await this.timed(this.terminate.retry, made, () => this.engine.terminate(made, 'bench', keyed(terminateKey, 'terminate')));
    };
    for (let repetition = 0; repetition < REPETITIONS; repetition++) {
      if (repetition % 2 === 0) await unkeyedPair().then(keyedPair);
      else await keyedPair().then(unkeyedPair);
      this.log(`figure 13: reset and terminate, repetition ${repetition + 1} of ${REPETITIONS}`);
    }
  }
}

const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

/** The calls of the repetition whose time was the median: `Describe 1, GetHistory 12, Reset 1`. */
function medianCalls(timings: Timed[]): string {
  const middle = [...timings].sort((a, b) => a.ms - b.ms)[Math.floor(timings.length / 2)]!;
  const calls = Object.entries(middle.calls).map(([method, count]) => `${method.replace('WorkflowExecution', '')} ${count}`);
  return calls.join(', ');
}

/** Forward history pages: what a call that read the whole history would show. */
const forwardPages = (timings: Timed[]): number => Math.max(...timings.map((timing) => timing.calls.GetWorkflowExecutionHistory ?? 0));

function figureOf(costs: CallCost[], historyEvents: number, buildSeconds: number): KeyedControlFigure {
  const ms = (value: number) => `${value.toFixed(1)} ms`;
  const ratios = costs.map((cost) => median(cost.keyed.map((timing) => timing.ms)) / median(cost.unkeyed.map((timing) => timing.ms)));
  const table = [
    ['call', 'without a key (median)', 'with a key (median)', 'keyed ÷ unkeyed', 'keyed retry (median)', 'gRPC calls without a key', 'with a key', 'keyed retry'],
    ...costs.map((cost, index) => [
      cost.call,
      ms(median(cost.unkeyed.map((timing) => timing.ms))),
      ms(median(cost.keyed.map((timing) => timing.ms))),
      `${ratios[index]!.toFixed(2)}×`,
      ms(median(cost.retry.map((timing) => timing.ms))),
      medianCalls(cost.unkeyed),
      medianCalls(cost.keyed),
      medianCalls(cost.retry),
    ]),
  ];
  const noExtraReads = costs.every((cost) => forwardPages(cost.keyed) <= forwardPages(cost.unkeyed) && forwardPages(cost.retry) <= forwardPages(cost.unkeyed));
  const met = noExtraReads && ratios.every((ratio) => ratio <= 2);
  const perCall = costs.map((cost, index) => `${cost.call} ${ratios[index]!.toFixed(2)}×`).join(', ');
  const verdict =
    `${met ? 'Met' : '**Missed**'}: a keyed call costs about what the unkeyed one does (target ≤ 2× its median, and no forward history page the unkeyed call does not read): ${perCall}. ` +
    `Every call went to a run of at least ${historyEvents.toLocaleString('en')} events (the long run, built of ${BATCHES} rounds of ${BATCH_SIZE} parallel steps in ${buildSeconds.toFixed(0)} s, and the runs its resets made); ` +
    `${REPETITIONS} repetitions each, keyed and unkeyed in alternating order, each once the run was idle; a reset reads the reset point in the whole base run with or without a key`;
  return { title: `Figure 13: keyed feedback, reset and terminate on Temporal beside the same calls without a key, on a run of ${historyEvents.toLocaleString('en')} events`, table, verdict };
}

/** Figure 13 on a Temporal dev server of its own, with flowgate's worker; everything it starts is stopped. */
export async function keyedControlFigure(traceDir: string, log: (line: string) => void): Promise<KeyedControlFigure> {
  log('figure 13: starting the Temporal dev server, its worker and the API');
  const temporal = await startTemporalFlowgate(traceDir);
  let connection: Connection | undefined;
  let engine: TemporalEngine | undefined;
  try {
    const counter = new GrpcCallCounter();
    const counted = await countedClient(temporal.address, NAMESPACE, counter);
    connection = counted.connection;
    engine = new TemporalEngine({ client: counted.client, namespace: NAMESPACE, logger: quiet, clock: systemClock });
    const bench = new KeyedControlBench(engine, connection, counter, log);
    const { run, seconds } = await bench.longRun();
    log(`figure 13: a run of ${await bench.idle(run)} events built in ${seconds.toFixed(0)} s`);
    await bench.measureFeedback(run);
    await bench.measureResetAndTerminate(run);
    return figureOf([bench.feedback, bench.reset, bench.terminate], bench.smallestHistory, seconds);
  } finally {
    await engine?.close();
    await connection?.close();
    await temporal.stop();
  }
}
