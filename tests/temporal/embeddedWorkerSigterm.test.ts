// A worker embedded with createWorker (docs/operations.md, Workers: "says goodbye on SIGTERM"): the application's own
// SIGTERM handler calls shutdown(), which must still find the worker polling to tell the catalog it leaves. The SDK
// must not stop polling on the signal by itself first, as it does with its default Runtime.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client, Connection } from '@temporalio/client';
import { ensureTemporalCli, startTemporalDevServer, type TemporalDevServer } from '../../scripts/infra/index.mjs';
import { CATALOG_MEMO_KEY, catalogWorkflowId, type CatalogMemo } from '../../adapters/temporal/protocol.js';
import { eventually } from '../support/eventually.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const EMBEDDING = fileURLToPath(new URL('./fixtures/embeddedWorker.ts', import.meta.url));
const CATALOG = 'embedded-worker';

interface Context {
  server: TemporalDevServer;
  traceDir: string;
  child?: ChildProcess;
}

const embedded = suite<Context>('Temporal: a worker embedded with createWorker, stopped by SIGTERM');

embedded.before(async (context) => {
  context.server = await startTemporalDevServer({ cliPath: await ensureTemporalCli(), log: () => {} });
  context.traceDir = await mkdtemp(join(tmpdir(), 'flowgate-embedded-worker-'));
});

embedded.after(async (context) => {
  context.child?.kill('SIGKILL');
  await context.server?.stop();
  if (context.traceDir) await rm(context.traceDir, { recursive: true, force: true });
});

embedded('on SIGTERM the application stops the worker, which leaves the catalog before it exits', async (context) => {
  const env = { PATH: process.env.PATH ?? '', TEMPORAL_ADDRESS: context.server.address, TEMPORAL_NAMESPACE: context.server.namespace, WORKER_CATALOG: CATALOG, TRACE_DIR: context.traceDir };
  const child = spawn(process.execPath, ['--import', 'tsx', EMBEDDING], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  context.child = child;
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk) => (stdout += chunk));
  child.stderr!.on('data', (chunk) => (stderr += chunk));
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));

  const identity = await eventually(
    () => `the embedded worker to publish itself:\n${stdout}\n${stderr}`,
    () => {
      if (child.exitCode !== null) throw new Error(`the embedding exited before it published:\n${stderr}`);
      const line = stdout.split('\n').find((candidate) => candidate.startsWith('{"published"'));
      return line ? (JSON.parse(line) as { published: string }).published : undefined;
    },
    { timeoutMs: 60_000 },
  );
  const connection = await Connection.connect({ address: context.server.address });
  try {
    const catalog = new Client({ connection, namespace: context.server.namespace }).workflow.getHandle(catalogWorkflowId(CATALOG));
    const onlineWorkers = async (): Promise<string[]> => ((await catalog.describe()).memo?.[CATALOG_MEMO_KEY] as CatalogMemo).onlineWorkers;
    assert.equal(await onlineWorkers(), [identity]);

    child.kill('SIGTERM');
    assert.is(await exited, 0, stderr);
    assert.equal(await onlineWorkers(), [], 'the worker said goodbye: the catalog no longer lists it');
  } finally {
    await connection.close();
  }
});

embedded.run();
