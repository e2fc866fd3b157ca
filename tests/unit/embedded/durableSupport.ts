import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EmbeddedEngine, type EmbeddedEngineOptions } from '../../../adapters/embedded/index.js';
import { openSqliteStore } from '../../../adapters/embedded/store/sqlite/openSqliteStore.js';
import type { SqliteStore } from '../../../adapters/embedded/store/sqlite/sqliteStore.js';
import type { WorkflowDefinition } from '../../../core/definition/workflow.js';
import type { RunOutcome } from '../../../core/domain/run.js';
import { eventTypes, flush, SequentialIds } from './support.js';
import { ManualClock } from '../../support/manualClock.js';
import { CapturingLogger } from '../../support/logLines.js';

/** Days of retention the durable harness keeps closed runs (RUN_RETENTION_DAYS). */
export const RETENTION_MS = 30 * 24 * 3600 * 1000;
export const IDEMPOTENCY_RETENTION_MS = 24 * 3600 * 1000;

export interface DurableHarness {
  readonly dataDir: string;
  readonly clock: ManualClock;
  readonly logger: CapturingLogger;
  engine: EmbeddedEngine;
  store: SqliteStore;
  /** Starts a run in catalog main. */
  run(workflow: WorkflowDefinition<any, any>, input: unknown, workflowId: string): Promise<{ workflowId: string; runId: string }>;
  /**
   * Stops the engine (as a process that exits: what the last turn changed is committed, then nothing more) and starts
   * another on the same data directory, serving `workflows` (the same ones unless given). `downMs`: fake time that
   * passes while nothing runs.
   */
  restart(options?: { workflows?: WorkflowDefinition<any, any>[]; downMs?: number; register?: boolean }): Promise<void>;
  /** Waits (fake time moving as needed, up to an hour) for the chain's final outcome. */
  outcome(ref: { workflowId: string; runId: string }): Promise<RunOutcome>;
  /** Event types of a run's history, in order. */
  types(ref: { workflowId: string; runId?: string }): Promise<string[]>;
  close(): void;
}

/** The embedded engine on its durable store in a temporary data directory, with a fake clock that survives restarts. */
export async function durableHarness(workflows: WorkflowDefinition<any, any>[], overrides: Partial<EmbeddedEngineOptions> = {}): Promise<DurableHarness> {
  const dataDir = mkdtempSync(join(tmpdir(), 'flowgate-durable-'));
  const clock = new ManualClock();
  const logger = new CapturingLogger();
  const ids = new SequentialIds();
  let served = workflows;
  const start = async (register = true): Promise<{ engine: EmbeddedEngine; store: SqliteStore }> => {
    const store = await openSqliteStore({ dataDir, clock, logger, retentionMs: RETENTION_MS, idempotencyRetentionMs: IDEMPOTENCY_RETENTION_MS });
    const engine = new EmbeddedEngine({ store, clock, ids, logger, ...overrides });
    if (register) engine.registerWorker({ catalog: 'main', workflows: served });
    return { engine, store };
  };
  const first = await start();
  const h: DurableHarness = {
    dataDir,
    clock,
    logger,
    engine: first.engine,
    store: first.store,
    async run(workflow, input, workflowId) {
      const run = await h.engine.start({ workflowName: workflow.name, catalog: 'main', workflowId, input });
      return { workflowId: run.workflowId, runId: run.runId };
    },
    async restart(options = {}) {
      h.engine.close();
      if (options.downMs) await clock.advance(options.downMs);
      if (options.workflows) served = options.workflows;
      const next = await start(options.register ?? true);
      h.engine = next.engine;
      h.store = next.store;
      await flush();
    },
    async outcome(ref) {
      const pending = h.engine.awaitOutcome(ref, { timeoutMs: 3_600_000 });
      for (let i = 0; i < 200; i += 1) {
        const done = await Promise.race([pending, flush().then(() => 'pending' as const)]);
        if (done !== 'pending') break;
        await clock.advance(60_000);
      }
      const outcome = await pending;
      if (!outcome) throw new Error('run did not close within an hour of fake time');
      return outcome;
    },
    types: (ref) => eventTypes(h.engine, ref),
    close() {
      h.engine.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
  return h;
}
