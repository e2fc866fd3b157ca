// The soak's server process: what `npm start` runs (composition's startFlowgateServer, from source), plus an IPC
// probe so the soak can ask for the heap after a full collection (the process runs with --expose-gc).
import { startFlowgateServer } from '../../composition/server.js';

const server = await startFlowgateServer();
process.on('message', (message: { id: number }) => {
  (globalThis as { gc?: () => void }).gc?.();
  process.send?.({ id: message.id, heapUsed: process.memoryUsage().heapUsed, rss: process.memoryUsage.rss() });
});
process.channel?.unref();
process.stdout.write(`${JSON.stringify({ msg: 'soak server ready', url: server.url })}\n`);
process.once('SIGTERM', () => void server.close().then(() => process.exit(0)));
