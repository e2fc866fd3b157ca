import { portOption, textOption, UsageError, type Command } from './command.js';
import type { FlowgateServer } from '../server.js';
import { untilSignal } from './signals.js';

export const serveCommand: Command = {
  name: 'serve',
  summary: 'the API over your workflows (embedded engine, or Temporal when TEMPORAL_ADDRESS is set)',
  synopsis: '[--workflows DIR] [--port N] [--host H] [--data-dir DIR | --in-memory]',
  description: [
    'Serves the workflows exported by the modules of DIR (.ts, .mts, .js, .mjs; TypeScript loads as it is) and those',
    "of the exposed packages in the project's node_modules, on the embedded engine, which keeps its runs in the data",
    'directory (SQLite; .flowgate in the project by default): a restart, even after a kill, resumes the open runs and',
    'loses nothing that was answered. --in-memory keeps runs in memory only. With TEMPORAL_ADDRESS set, the',
    'API runs on Temporal and the workflows run in `flowgate worker` processes. Every environment variable of the',
    'README keeps working; an option wins over its variable. Logs are JSON lines on stdout; Ctrl-C or SIGTERM stops',
    'the server gracefully (SHUTDOWN_GRACE_MS); SIGHUP reads API_KEYS_FILE again.',
  ].join('\n'),
  options: {
    workflows: { type: 'string', value: 'DIR', description: 'directory of workflow modules (WORKFLOWS_DIR; default ./workflows)' },
    port: { type: 'string', value: 'N', description: 'port to listen on, 0 for a free one (PORT; default 3001)' },
    host: { type: 'string', value: 'H', description: 'interface to listen on (HOST; default 127.0.0.1)' },
    'data-dir': { type: 'string', value: 'DIR', description: "where the embedded engine keeps its runs (DATA_DIR; default .flowgate in the project)" },
    'in-memory': { type: 'boolean', description: 'keep runs in memory only: they end with the process (ENGINE=memory)' },
  },
  async run(values, context) {
    if (values['in-memory'] && values['data-dir'] !== undefined) throw new UsageError('--in-memory keeps no data directory: give --data-dir or --in-memory, not both');
    const overrides = {
      WORKFLOWS_DIR: textOption(values.workflows, 'workflows'),
      PORT: portOption(values.port, 'port'),
      HOST: textOption(values.host, 'host'),
      DATA_DIR: textOption(values['data-dir'], 'data-dir'),
      ENGINE: values['in-memory'] ? 'memory' : undefined,
    };
    const env = { ...context.env, ...Object.fromEntries(Object.entries(overrides).filter(([, value]) => value !== undefined)) };
    // Loaded here, not with the command table: the commands that only call the API start without the server's modules.
    const { startFlowgateServer } = await import('../server.js');
    const server = await startFlowgateServer({ env });
    context.stderr(`flowgate: serving on ${server.url} (${engineLine(server)})\n`);
    // SIGHUP reads API_KEYS_FILE again (docs/security.md); the outcome is the server's log line. Without a key file
    // SIGHUP keeps its default (the process ends, as when its terminal goes away).
    const reloadKeys = () => void server.reloadAccessKeys();
    if (server.config.apiKeysFile !== undefined) process.on('SIGHUP', reloadKeys);
    const signal = await untilSignal();
    process.off('SIGHUP', reloadKeys);
    context.stderr(`flowgate: ${signal} received, shutting down\n`);
    const { openRunsLeft } = await server.close();
    if (server.dataDir !== undefined && openRunsLeft !== undefined) {
      context.stderr(`flowgate: stopped; ${plural(openRunsLeft, 'open run')} left in ${server.dataDir}, resumed at the next start\n`);
    }
    return 0;
  },
};

/** Which engine serves, and for the durable embedded engine where its data lives and what it resumed. */
function engineLine(server: FlowgateServer): string {
  if (server.engine.kind === 'temporal') return `Temporal at ${server.config.temporal?.address}`;
  if (server.dataDir === undefined) return 'embedded engine, in memory: runs end with this process';
  return `embedded engine, data in ${server.dataDir}, ${plural(server.openRunCount(), 'open run')} resumed`;
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}
