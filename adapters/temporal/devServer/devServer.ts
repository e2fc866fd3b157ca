import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { findFreePorts, LOOPBACK } from './freePorts.js';
import { killNow, launch, terminate, type RunningProcess } from './childProcess.js';
import { devServerArgs, FLOWGATE_SEARCH_ATTRIBUTES } from './devServerArgs.js';
import { waitForTemporal } from './waitForTemporal.js';

const STOP_GRACE_MS = 10_000;
/**
 * Launches again when another process grabbed a port between its choice and the server binding it: with fresh
 * ports at the first start, on the same frontend port at a restart (the CLI picks its internal ports afresh).
 */
const PORT_RACE_ATTEMPTS = 3;
/** Times the attempt number: a port held by a short-lived connection is often free a moment later. */
const PORT_RACE_BACKOFF_MS = 500;

export type Log = (line: string) => void;

export interface StartTemporalDevServerOptions {
  /** The Temporal CLI binary (locateTemporalCli). */
  cliPath: string;
  log?: Log;
  /** SQLite file: state survives stop/start (for restart and fault tests). @default in memory */
  dbFilename?: string;
  /** Created at start unless `default`. @default 'default' */
  namespace?: string;
  /** Also serve the web UI (on its own free port). */
  ui?: boolean;
  /** @default FLOWGATE_SEARCH_ATTRIBUTES */
  searchAttributes?: Record<string, string>;
  /** Merged over DEV_SERVER_DYNAMIC_CONFIG. */
  dynamicConfig?: Record<string, boolean | number | string>;
  /** Appended to the CLI arguments as they are. */
  extraArgs?: string[];
  /** @default 90000: a loaded 2-core machine can be slow */
  readyTimeoutMs?: number;
  /** The server died after it was ready without stop() being called (a crash, or something else killed it). */
  onUnexpectedExit?: (how: string, output: string) => void;
}

export interface TemporalDevServer {
  /** `127.0.0.1:PORT`, the gRPC frontend. */
  readonly address: string;
  readonly namespace: string;
  readonly port: number;
  readonly httpPort: number;
  readonly metricsPort: number;
  readonly uiPort?: number;
  readonly dbFilename?: string;
  /** The CLI arguments, for diagnostics. */
  readonly args: string[];
  isRunning(): boolean;
  /** The last lines the server printed (stdout and stderr). */
  output(): string;
  /** SIGTERM, then SIGKILL after 10 s; safe to call more than once. */
  stop(): Promise<void>;
  /** Ends the server abruptly (SIGKILL by default), as a crash would; start() brings it back. No-op when not running. */
  kill(signal?: NodeJS.Signals): Promise<void>;
  /** Starts a stopped server again on the same ports; no-op while running. */
  start(): Promise<void>;
  /** stop(), then start() on the same ports. In-memory state is lost unless `dbFilename` was given. */
  restart(): Promise<void>;
}

function describeEarlyExit(info: { code: number | null; signal: NodeJS.Signals | null; error?: Error }, output: string): string {
  const how = info.error ? `could not be started (${info.error.message})` : `exited with ${info.signal ?? `code ${info.code}`}`;
  return `temporal server start-dev ${how} before it was ready${output.trim() ? `:\n${output.trim()}` : ' (no output)'}`;
}

const lostAPortRace = (output: string): boolean => /can't set .*port|address already in use/i.test(output);

/**
 * Runs `temporal server start-dev` (in memory unless `dbFilename`) as a child process on free 127.0.0.1 ports, waits
 * until it answers, and stops it: on request, on restart (same ports, so clients keep their address), and when this
 * Node process exits. `flowgate dev` runs one; so does this repository's test infrastructure (scripts/infra).
 */
export async function startTemporalDevServer(options: StartTemporalDevServerOptions): Promise<TemporalDevServer> {
  const {
    cliPath,
    log = (line: string) => void process.stderr.write(`${line}\n`),
    dbFilename,
    namespace = 'default',
    ui = false,
    searchAttributes = FLOWGATE_SEARCH_ATTRIBUTES,
    dynamicConfig = {},
    extraArgs = [],
    readyTimeoutMs = 90_000,
    onUnexpectedExit,
  } = options;
  const dbPath = dbFilename ? resolve(dbFilename) : undefined;
  // The CLI checks the database's directory before creating the file.
  if (dbPath) mkdirSync(dirname(dbPath), { recursive: true });

  const argsFor = ([port, httpPort, metricsPort, uiPort]: number[]): string[] => [
    ...devServerArgs({ ip: LOOPBACK, ports: { port: port!, httpPort: httpPort!, metricsPort: metricsPort!, uiPort }, namespace, dbFilename: dbPath, searchAttributes, dynamicConfig }),
    ...extraArgs,
  ];

  /** Spawns the server and waits until it answers; kills it again if it never does. */
  const launchAndWait = async (args: string[], address: string): Promise<RunningProcess> => {
    const startedAt = Date.now();
    const running = launch(cliPath, args);
    const abandon = running.exited.then((info): never => {
      throw Object.assign(new Error(describeEarlyExit(info, running.output())), { output: running.output() });
    });
    try {
      await waitForTemporal({ address, namespace, timeoutMs: readyTimeoutMs, abandon });
    } catch (error) {
      await terminate(running, STOP_GRACE_MS);
      throw error;
    }
    void running.exited.then((info) => {
      if (!running.stopRequested) onUnexpectedExit?.(info.signal ?? `exit code ${info.code}`, running.output());
    });
    log(`Temporal dev server ready at ${address} in ${((Date.now() - startedAt) / 1000).toFixed(1)} s (pid ${running.child.pid})`);
    return running;
  };

  /**
   * Launches until the server is up, trying again when it lost a port race: a port chosen free was taken before the
   * server bound it. That includes the internal services' ports, which the CLI picks itself at each launch; under
   * load (clients reconnecting to a dead frontend use ephemeral ports) a restart on the same frontend port can lose.
   */
  const launchRetryingPortRaces = async (prepare: () => Promise<{ args: string[]; address: string }>): Promise<RunningProcess> => {
    for (let attempt = 1; ; attempt += 1) {
      const { args, address } = await prepare();
      try {
        return await launchAndWait(args, address);
      } catch (error) {
        const output = (error as { output?: string } | undefined)?.output ?? '';
        if (attempt >= PORT_RACE_ATTEMPTS || !lostAPortRace(output)) throw error;
        log('a port was taken before the Temporal dev server bound it; launching it again');
        await new Promise((resolveDelay) => setTimeout(resolveDelay, PORT_RACE_BACKOFF_MS * attempt));
      }
    }
  };

  let ports: number[] = [];
  let current: RunningProcess | undefined = await launchRetryingPortRaces(async () => {
    ports = await findFreePorts(ui ? 4 : 3);
    return { args: argsFor(ports), address: `${LOOPBACK}:${ports[0]}` };
  });
  // Kept after a stop so its output can still be read.
  let last: RunningProcess | undefined = current;

  const [port, httpPort, metricsPort, uiPort] = ports as [number, number, number, number | undefined];
  const address = `${LOOPBACK}:${port}`;
  const args = argsFor(ports);
  let stopping: Promise<void> | undefined;
  let starting: Promise<void> | undefined;

  const stop = (): Promise<void> => {
    const running = current;
    if (!running) return Promise.resolve();
    stopping ??= terminate(running, STOP_GRACE_MS).finally(() => {
      if (current === running) current = undefined;
      stopping = undefined;
    });
    return stopping;
  };

  const kill = async (signal: NodeJS.Signals = 'SIGKILL'): Promise<void> => {
    const running = current;
    if (!running) return;
    await killNow(running, signal);
    if (current === running) current = undefined;
  };

  const start = (): Promise<void> => {
    starting ??= (async () => {
      if (stopping) await stopping;
      if (current && !current.hasExited()) return;
      current = await launchRetryingPortRaces(async () => ({ args, address }));
      last = current;
    })().finally(() => {
      starting = undefined;
    });
    return starting;
  };

  return {
    address,
    namespace,
    port,
    httpPort,
    metricsPort,
    ...(uiPort ? { uiPort } : {}),
    ...(dbPath ? { dbFilename: dbPath } : {}),
    args,
    isRunning: () => Boolean(current && !current.hasExited()),
    output: () => last?.output() ?? '',
    stop,
    kill,
    start,
    restart: async () => {
      await stop();
      await start();
    },
  };
}
