import { setImmediate as nextMacrotask } from 'node:timers/promises';
import { EmbeddedEngine, type ClosedRunRecord, type EmbeddedEngineOptions } from '../../../adapters/embedded/index.js';
import type { WorkflowDefinition } from '../../../core/definition/workflow.js';
import type { HistoryEvent } from '../../../core/domain/history.js';
import type { RunOutcome, RunRef } from '../../../core/domain/run.js';
import type { Clock } from '../../../ports/clock.js';
import type { IdGenerator } from '../../../ports/ids.js';
import type { LogFields, Logger } from '../../../ports/logger.js';
import type { WebhookCall, WebhookSender } from '../../../ports/webhookSender.js';

/** A clock that only moves when told to; timers fire in due order, each followed by the work it releases. */
export class FakeClock implements Clock {
  private current = Date.UTC(2026, 0, 1);
  private timers: { at: number; seq: number; callback: () => void }[] = [];
  private seq = 0;

  now(): number {
    return this.current;
  }

  setTimer(ms: number, callback: () => void): () => void {
    const timer = { at: this.current + Math.max(0, ms), seq: (this.seq += 1), callback };
    this.timers.push(timer);
    return () => {
      this.timers = this.timers.filter((t) => t !== timer);
    };
  }

  get pendingTimers(): number {
    return this.timers.length;
  }

  /** Moves time forward by `ms`, firing due timers one by one and letting the engine react to each. */
  async advance(ms: number): Promise<void> {
    const target = this.current + ms;
    await flush();
    for (;;) {
      const due = this.timers.filter((t) => t.at <= target).sort((a, b) => a.at - b.at || a.seq - b.seq)[0];
      if (!due) break;
      this.timers = this.timers.filter((t) => t !== due);
      this.current = Math.max(this.current, due.at);
      due.callback();
      await flush();
    }
    this.current = target;
    await flush();
  }
}

/** Lets every pending promise chain run (several macrotask turns, for chains that hop through hooks). */
export async function flush(turns = 5): Promise<void> {
  for (let i = 0; i < turns; i += 1) await nextMacrotask();
}

export class SequentialIds implements IdGenerator {
  private n = 0;
  uuid(): string {
    this.n += 1;
    return `00000000-0000-4000-8000-${this.n.toString(16).padStart(12, '0')}`;
  }
}

export class CapturingLogger implements Logger {
  readonly lines: { level: string; message: string; fields?: LogFields }[] = [];
  info(message: string, fields?: LogFields): void {
    this.lines.push({ level: 'info', message, fields });
  }
  warn(message: string, fields?: LogFields): void {
    this.lines.push({ level: 'warn', message, fields });
  }
  error(message: string, fields?: LogFields): void {
    this.lines.push({ level: 'error', message, fields });
  }
}

/** Records calls; fails the first `failures` of them (a flaky target). */
export class RecordingWebhookSender implements WebhookSender {
  readonly calls: WebhookCall[] = [];
  constructor(public failures = 0) {}
  async send(call: WebhookCall): Promise<void> {
    this.calls.push(call);
    if (this.failures > 0) {
      this.failures -= 1;
      throw new Error('target answered 503');
    }
  }
}

export interface Harness {
  engine: EmbeddedEngine;
  clock: FakeClock;
  logger: CapturingLogger;
  webhooks: RecordingWebhookSender;
  closedRuns: ClosedRunRecord[];
  /** Starts a run of `workflow` in catalog main and returns its pinned ref. */
  run(workflow: WorkflowDefinition<any, any>, input: unknown, workflowId?: string): Promise<{ workflowId: string; runId: string }>;
  /** Waits (with fake time moving as needed, up to an hour) for the chain's final outcome. */
  outcome(ref: { workflowId: string; runId: string }): Promise<RunOutcome>;
  close(): void;
}

let idCounter = 0;

export function harness(
  workflows: WorkflowDefinition<any, any>[],
  overrides: Partial<EmbeddedEngineOptions> = {},
): Harness {
  const clock = new FakeClock();
  const logger = new CapturingLogger();
  const webhooks = new RecordingWebhookSender();
  const closedRuns: ClosedRunRecord[] = [];
  const engine = new EmbeddedEngine({
    clock,
    ids: new SequentialIds(),
    logger,
    webhookSender: webhooks,
    onRunClosed: async (closed) => {
      closedRuns.push(closed);
    },
    ...overrides,
  });
  engine.registerWorker({ catalog: 'main', workflows });
  return {
    engine,
    clock,
    logger,
    webhooks,
    closedRuns,
    async run(workflow, input, workflowId = `wf-${(idCounter += 1)}`) {
      const run = await engine.start({ workflowName: workflow.name, catalog: 'main', workflowId, input });
      return { workflowId: run.workflowId, runId: run.runId };
    },
    async outcome(ref) {
      const pending = engine.awaitOutcome(ref, { timeoutMs: 3_600_000 });
      for (let i = 0; i < 200; i += 1) {
        const done = await Promise.race([pending, flush().then(() => 'pending' as const)]);
        if (done !== 'pending') break;
        await clock.advance(60_000);
      }
      const outcome = await pending;
      if (!outcome) throw new Error('run did not close within an hour of fake time');
      return outcome;
    },
    close: () => engine.close(),
  };
}

/** Every event of a run's history, in order, page after page (a page holds at most HISTORY_PAGE_MAX_BYTES). */
export async function historyEvents(engine: EmbeddedEngine, ref: RunRef): Promise<HistoryEvent[]> {
  const events: HistoryEvent[] = [];
  let pageToken: string | undefined;
  do {
    const { page } = await engine.historyPage(ref, { pageSize: 200, ...(pageToken === undefined ? {} : { pageToken }) });
    events.push(...page.events);
    pageToken = page.nextPageToken ?? undefined;
  } while (pageToken !== undefined);
  return events;
}

/** The event types of a run's history, in order. */
export async function eventTypes(engine: EmbeddedEngine, ref: RunRef): Promise<string[]> {
  return (await historyEvents(engine, ref)).map((event) => event.type);
}
