// flowgate on a Temporal dev server of its own, as the Temporal figures run it: the dev server (scripts/infra), one
// `flowgate worker` process serving the bench workflows on the `main` catalog, and the API (flowgateServer.mjs).
import { request } from 'undici';
import { startTemporalDevServer } from '../scripts/infra/index.mjs';
import { startServer, type ServerProcess } from './processes.js';

export interface TemporalFlowgate {
  /** The API process, and its URL. */
  server: ServerProcess;
  url: string;
  /** The dev server's gRPC address. */
  address: string;
  /** Stops the API, the worker and the dev server, in that order. */
  stop(): Promise<void>;
}

/** Ready once a bench_noop run goes through the API to the worker and back. */
export async function startTemporalFlowgate(traceDir: string): Promise<TemporalFlowgate> {
  const temporal = await startTemporalDevServer({ log: () => {} });
  const env = { ENGINE: 'temporal', TEMPORAL_ADDRESS: temporal.address, TRACE_DIR: traceDir, LOG_LEVEL: 'error' };
  const worker = startServer('dist/composition/cli/main.js', { ...env, WORKER_CATALOG: 'main', WORKFLOWS_DIR: 'dist/bench/workflows' }, ['worker']);
  worker.ready.catch(() => {}); // it prints nothing at LOG_LEVEL=error; readiness is checked through the API
  let server: ServerProcess | undefined;
  const stop = async () => {
    await server?.stop();
    await worker.stop();
    await temporal.stop();
  };
  try {
    server = startServer('bench/processes/flowgateServer.mjs', env);
    const { url } = await server.ready;
    await waitUntilServes(url as string);
    return { server, url: url as string, address: temporal.address, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

async function waitUntilServes(url: string, timeoutMs = 120_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const response = await request(`${url}/workflow/run`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ workflowName: 'bench_noop', input: {} }),
    }).catch(() => undefined);
    const status = response?.statusCode;
    await response?.body.dump();
    if (status === 200) return;
    if (Date.now() > deadline) throw new Error(`${url} did not run bench_noop within ${timeoutMs} ms (last status ${status})`);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}
