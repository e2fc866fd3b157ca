import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startFlowgateServer, type WorkerSpec } from '../../composition/server.js';
import type { LogFields, Logger } from '../../ports/logger.js';
import * as basic from '../fixtures/workflows/basic.js';
import * as contract from '../fixtures/workflows/contract.js';
import { otherOnly, idleOnly } from '../fixtures/workflows/otherCatalog.js';

export type EngineName = 'memory';

/** The engine the contract suites run against in this process (scripts/suites.mjs runs them once per engine). */
export function engineUnderTest(): EngineName {
  const name = process.env.FLOWGATE_TEST_ENGINE ?? 'memory';
  if (name !== 'memory') throw new Error(`FLOWGATE_TEST_ENGINE=${name} is not an engine this build can test`);
  return name;
}

export const FIXTURE_WORKERS: WorkerSpec[] = [
  { catalog: 'main', workflows: [...Object.values(basic), ...Object.values(contract)] },
  { catalog: 'other', workflows: [otherOnly] },
  { catalog: 'idle', workflows: [idleOnly] },
];

export interface LogLine extends LogFields {
  level: string;
  msg: string;
}

export interface TestApi {
  engine: EngineName;
  baseUrl: string;
  traceDir: string;
  /** Every line the server logged, for assertions (access log, the token never appearing). */
  logs: LogLine[];
  stopWorker(catalog: string): Promise<void>;
  startWorker(catalog: string): Promise<void>;
  close(): Promise<void>;
}

class CapturingLogger implements Logger {
  constructor(readonly lines: LogLine[]) {}
  info(msg: string, fields?: LogFields): void {
    this.lines.push({ level: 'info', msg, ...fields });
  }
  warn(msg: string, fields?: LogFields): void {
    this.lines.push({ level: 'warn', msg, ...fields });
  }
  error(msg: string, fields?: LogFields): void {
    this.lines.push({ level: 'error', msg, ...fields });
  }
}

/**
 * Starts the API on a free loopback port, with the fixture catalogs `main`, `other` and `idle` (the idle
 * catalog's worker is stopped, so it is known but unavailable). `env` adds or overrides variables.
 */
export async function startTestApi(env: Record<string, string> = {}): Promise<TestApi> {
  const engine = engineUnderTest();
  const traceDir = await mkdtemp(join(tmpdir(), 'flowgate-traces-'));
  const logs: LogLine[] = [];
  const server = await startFlowgateServer({
    env: { HOST: '127.0.0.1', PORT: '0', TRACE_DIR: traceDir, DEFAULT_CATALOG: 'main', SHUTDOWN_GRACE_MS: '2000', ...env },
    workers: FIXTURE_WORKERS,
    logger: new CapturingLogger(logs),
  });
  server.stopWorker('idle');
  return {
    engine,
    baseUrl: server.url,
    traceDir,
    logs,
    stopWorker: async (catalog) => server.stopWorker(catalog),
    startWorker: async (catalog) => server.startWorker(catalog),
    close: async () => {
      await server.close();
      await rm(traceDir, { recursive: true, force: true });
    },
  };
}
