import { EmbeddedEngine, type ClosedRunRecord, type EmbeddedEngineOptions } from '../../../adapters/embedded/index.js';
import type { WorkflowDefinition } from '../../../core/definition/workflow.js';
import type { HistoryEvent } from '../../../core/domain/history.js';
import type { RunOutcome, RunRef } from '../../../core/domain/run.js';
import { CapturingLogger } from '../../support/logLines.js';
import { flush, ManualClock } from '../../support/manualClock.js';
import type { IdGenerator } from '../../../ports/ids.js';
import type { LogFields, Logger } from '../../../ports/logger.js';
import type { WebhookCall, WebhookSender } from '../../../ports/webhookSender.js';

// The one clock double (tests/support/manualClock.ts); flush is re-exported for the many tests here that use it.
export { flush };

export class SequentialIds implements IdGenerator {
  private n = 0;
  uuid(): string {
    this.n += 1;
    return `00000000-0000-4000-8000-${this.n.toString(16).padStart(12, '0')}`;
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
  clock: ManualClock;
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
  const clock = new ManualClock();
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
