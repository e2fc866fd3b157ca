// flowgate on the embedded engine, in its own process, with one completed run to ask about.
import { startFlowgateServer } from '../composition/server.js';

const server = await startFlowgateServer({ env: { ...process.env, PORT: '0', LOG_LEVEL: 'error' } });
const result = await server.api.runSync({ workflowName: 'summarise', input: { text: 'a b c' }, workflowId: 'bench-status', timeoutSeconds: 10 }, '2');
if (result.status !== 'completed') throw new Error(`bench setup run ended ${result.status}`);
process.stdout.write(`${JSON.stringify({ url: server.url, rss: process.memoryUsage().rss })}\n`);
process.once('SIGTERM', () => server.close().then(() => process.exit(0)));
