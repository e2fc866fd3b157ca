import { portOption, textOption, type Command } from './command.js';
import { untilSignal } from './signals.js';

export const serveCommand: Command = {
  name: 'serve',
  summary: 'the API over your workflows (embedded engine, or Temporal when TEMPORAL_ADDRESS is set)',
  synopsis: '[--workflows DIR] [--port N] [--host H]',
  description: [
    'Serves the workflows exported by the modules of DIR (.ts, .mts, .js, .mjs; TypeScript loads as it is) and those',
    "of the exposed packages in the project's node_modules, on the embedded engine. With TEMPORAL_ADDRESS set, the",
    'API runs on Temporal and the workflows run in `flowgate worker` processes. Every environment variable of the',
    'README keeps working; an option wins over its variable. Logs are JSON lines on stdout; Ctrl-C or SIGTERM stops',
    'the server gracefully (SHUTDOWN_GRACE_MS).',
  ].join('\n'),
  options: {
    workflows: { type: 'string', value: 'DIR', description: 'directory of workflow modules (WORKFLOWS_DIR; default ./workflows)' },
    port: { type: 'string', value: 'N', description: 'port to listen on, 0 for a free one (PORT; default 3001)' },
    host: { type: 'string', value: 'H', description: 'interface to listen on (HOST; default 127.0.0.1)' },
  },
  async run(values, context) {
    const overrides = {
      WORKFLOWS_DIR: textOption(values.workflows, 'workflows'),
      PORT: portOption(values.port, 'port'),
      HOST: textOption(values.host, 'host'),
    };
    const env = { ...context.env, ...Object.fromEntries(Object.entries(overrides).filter(([, value]) => value !== undefined)) };
    // Loaded here, not with the command table: the commands that only call the API start without the server's modules.
    const { startFlowgateServer } = await import('../server.js');
    const server = await startFlowgateServer({ env });
    const onTemporal = server.engine.kind === 'temporal';
    context.stderr(`flowgate: serving on ${server.url} (${onTemporal ? `Temporal at ${server.config.temporal?.address}` : 'embedded engine'})\n`);
    const signal = await untilSignal();
    context.stderr(`flowgate: ${signal} received, shutting down\n`);
    await server.close();
    return 0;
  },
};
