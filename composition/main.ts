import { ConfigError } from './config.js';
import { startFlowgateServer } from './server.js';

/** `npm start`: the API server on the embedded engine. Invalid configuration ends the process with one line per problem. */
async function main(): Promise<void> {
  let server;
  try {
    server = await startFlowgateServer();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`flowgate: ${error.message}\n`);
      process.exit(2);
    }
    throw error;
  }
  const shutdown = (signal: string): void => {
    process.stderr.write(`flowgate: ${signal} received, shutting down\n`);
    server.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once('SIGTERM', () => shutdown('SIGTERM'));
  process.once('SIGINT', () => shutdown('SIGINT'));
}

main().catch((error: unknown) => {
  process.stderr.write(`flowgate: failed to start: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
