// flowgate in its own process, as `npm start` runs it: the compiled dist/ under plain node, serving the bench
// workflows. The memory engine unless the environment names one (ENGINE): the figures that say "memory engine" must
// not open the project's data directory, which one process holds at a time. Prints {url} when ready and answers the
// bench's IPC probes. LOG_LEVEL=error (no access log) unless BENCH_DEFAULT_CONFIG=1 (the default configuration, access log on) or
// BENCH_LOG_LEVEL says otherwise.
import { startFlowgateServer } from '../../dist/composition/server.js';
import { serveRssProbe } from './rssProbe.mjs';

// The durable store's commits are timed (figure 11) only where the bench asks for that engine.
const commitTimes = process.env.ENGINE === 'embedded' ? (await import('./commitTimes.mjs')).commitTimes : undefined;

const logLevel = process.env.BENCH_DEFAULT_CONFIG === '1' ? {} : { LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'error' };
const server = await startFlowgateServer({ env: { ENGINE: 'memory', ...process.env, PORT: '0', ...logLevel, WORKFLOWS_DIR: 'dist/bench/workflows' } });
if (process.env.BENCH_STATUS_RUN) {
  const { answer: result } = await server.api.runAndWait({ workflowName: 'bench_noop', input: {}, workflowId: process.env.BENCH_STATUS_RUN, timeoutSeconds: 30 }, '2');
  if (result.status !== 'completed') throw new Error(`bench setup run ended ${result.status}`);
}
serveRssProbe({ commitTimes });
process.stdout.write(`${JSON.stringify({ url: server.url })}\n`);
process.once('SIGTERM', () => server.close().then(() => process.exit(0)));
