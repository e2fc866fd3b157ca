import type { CatalogDescription } from '../../core/domain/catalog.js';
import type { HistoryPage } from '../../core/domain/history.js';
import type { RequestIdempotency } from '../../core/domain/idempotency.js';
import type { PinnedRunRef, RunDescription, RunOutcome, RunRef, StartCommand } from '../../core/domain/run.js';
import type { AwaitOptions, ControlKeys, HistoryPageQuery, ListRunsQuery, RunList, RunStreamItem, WorkflowEngine } from '../../ports/engine.js';
import type { ScheduleEngine } from '../../ports/schedules.js';

/** A call a test did not expect: the fake names the method instead of answering something made up. */
export class NotFakedError extends Error {
  constructor(method: string) {
    super(`FakeEngine: ${method} is not faked by this test`);
    this.name = 'NotFakedError';
  }
}

/** The calls of the engine port, each of which a test may give. */
export type EngineCalls = Omit<WorkflowEngine, 'kind' | 'controlKeys' | 'schedules'>;

/**
 * The test double of the WorkflowEngine port: the calls a test gives answer as it says (or a subclass overrides them),
 * every other call throws NotFakedError. Typed against the port, so a change to the port shows here at compile time.
 */
export class FakeEngine implements WorkflowEngine {
  readonly kind = 'fake';

  constructor(
    private readonly calls: Partial<EngineCalls> = {},
    readonly controlKeys: ControlKeys = 'kept-by-api-process',
  ) {}

  get schedules(): ScheduleEngine {
    throw new NotFakedError('schedules');
  }

  async start(command: StartCommand): Promise<RunDescription> {
    return this.given('start')(command);
  }
  async awaitOutcome(run: PinnedRunRef, options: AwaitOptions): Promise<RunOutcome | undefined> {
    return this.given('awaitOutcome')(run, options);
  }
  async describe(run: RunRef): Promise<RunDescription> {
    return this.given('describe')(run);
  }
  async getOutcome(run: RunRef): Promise<RunOutcome> {
    return this.given('getOutcome')(run);
  }
  async getInput(run: PinnedRunRef): Promise<unknown> {
    return this.given('getInput')(run);
  }
  async historyPage(run: RunRef, query: HistoryPageQuery): Promise<{ run: RunDescription; page: HistoryPage }> {
    return this.given('historyPage')(run, query);
  }
  followRun(run: PinnedRunRef, afterEventId: number, signal: AbortSignal): AsyncIterable<RunStreamItem> {
    return this.given('followRun')(run, afterEventId, signal);
  }
  async listRuns(query: ListRunsQuery): Promise<RunList> {
    return this.given('listRuns')(query);
  }
  async cancel(run: RunRef, identity?: string): Promise<RunDescription> {
    return this.given('cancel')(run, identity);
  }
  async terminate(run: RunRef, reason: string, idempotency?: RequestIdempotency, identity?: string): Promise<RunDescription> {
    return this.given('terminate')(run, reason, idempotency, identity);
  }
  async reset(run: RunRef, stepName: string, reason: string, idempotency?: RequestIdempotency, identity?: string): Promise<PinnedRunRef> {
    return this.given('reset')(run, stepName, reason, idempotency, identity);
  }
  async deliverFeedback(workflowId: string, payload: unknown, idempotency?: RequestIdempotency, identity?: string): Promise<PinnedRunRef> {
    return this.given('deliverFeedback')(workflowId, payload, idempotency, identity);
  }
  async describeCatalog(catalog: string): Promise<CatalogDescription | undefined> {
    return this.given('describeCatalog')(catalog);
  }
  async catalogsWithWorkflow(workflowName: string): Promise<string[]> {
    return this.given('catalogsWithWorkflow')(workflowName);
  }
  async health(signal: AbortSignal): Promise<void> {
    return this.given('health')(signal);
  }

  private given<K extends keyof EngineCalls>(method: K): EngineCalls[K] {
    const call = this.calls[method];
    if (!call) throw new NotFakedError(method);
    return call;
  }
}
