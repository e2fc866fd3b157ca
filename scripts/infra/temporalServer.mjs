// Runs `temporal server start-dev` as a child process on free loopback ports, waits until it serves, and stops it:
// on request, on restart (same ports, so clients keep their address), and when this Node process exits.
import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { ensureTemporalCli } from './temporalCli.mjs';
import { findFreePorts, LOOPBACK } from './freePorts.mjs';
import { killNow, launch, terminate } from './serverProcess.mjs';
import { devServerArgs, FLOWGATE_SEARCH_ATTRIBUTES } from './temporalServerArgs.mjs';
import { waitForTemporal } from './waitForTemporal.mjs';

const STOP_GRACE_MS = 10_000;
/**
 * Launches again when another process grabbed a port between its choice and the server binding it: with fresh
 * ports at the first start, on the same frontend port at a restart (the CLI picks its internal ports afresh).
 */
const PORT_RACE_ATTEMPTS = 3;
/** Times the attempt number: a port held by a short-lived connection is often free a moment later. */
const PORT_RACE_BACKOFF_MS = 500;

/** @typedef {(line: string) => void} Log */
/** @type {Log} */
const logToStderr = (line) => {
  process.stderr.write(`${line}\n`);
};

/**
 * @typedef {object} TemporalDevServer
 * @property {string} address `127.0.0.1:PORT`, the gRPC frontend.
 * @property {string} namespace
 * @property {number} port
 * @property {number} httpPort
 * @property {number} metricsPort
 * @property {number} [uiPort]
 * @property {string} [dbFilename]
 * @property {string[]} args the CLI arguments, for diagnostics.
 * @property {() => boolean} isRunning
 * @property {() => string} output the last lines the server printed (stdout and stderr).
 * @property {() => Promise<void>} stop SIGTERM, then SIGKILL after 10 s; safe to call more than once.
 * @property {(signal?: NodeJS.Signals) => Promise<void>} kill ends the server abruptly (SIGKILL unless told otherwise),
 *   as a crash would, and resolves once it is gone; start() brings it back. No-op when it is not running.
 * @property {() => Promise<void>} start starts a stopped server again on the same ports; no-op while running.
 * @property {() => Promise<void>} restart stop, then start on the same ports. In-memory state is lost; use
 *   `dbFilename` to keep it.
 */

/**
 * @param {{ code: number | null, signal: NodeJS.Signals | null, error?: Error }} info
 * @param {string} output
 */
function describeEarlyExit(info, output) {
  const how = info.error ? `could not be started (${info.error.message})` : `exited with ${info.signal ?? `code ${info.code}`}`;
  return `temporal server start-dev ${how} before it was ready${output.trim() ? `:\n${output.trim()}` : ' (no output)'}`;
}

/** @param {string} output */
const lostAPortRace = (output) => /can't set .*port|address already in use/i.test(output);

/**
 * Starts a Temporal dev server (in memory unless `dbFilename`) on free 127.0.0.1 ports and waits until it answers.
 * @param {object} [options]
 * @param {string} [options.cliPath] the Temporal CLI; found or built with ensureTemporalCli() when omitted.
 * @param {boolean} [options.largeMessages] without cliPath: use the CLI built to accept gRPC requests up to 128 MiB
 *   (a stock server refuses any request over 4 MiB, so payloads over ~4 MiB need this). Built on first use.
 * @param {Log} [options.log]
 * @param {string} [options.dbFilename] SQLite file: state survives stop/start (for restart and fault tests).
 * @param {string} [options.namespace] `default` unless given; the server creates it at start.
 * @param {boolean} [options.ui] also serve the web UI (on its own free port).
 * @param {Record<string, string>} [options.searchAttributes] defaults to FLOWGATE_SEARCH_ATTRIBUTES.
 * @param {Record<string, boolean | number | string>} [options.dynamicConfig] merged over DEV_SERVER_DYNAMIC_CONFIG.
 * @param {string[]} [options.extraArgs] appended to the CLI arguments as they are.
 * @param {number} [options.readyTimeoutMs] 90 s by default: a loaded 2-core machine can be slow.
 * @param {(how: string, output: string) => void} [options.onUnexpectedExit] the server died after it was ready
 *   without stop() being called (a crash, or something else killed it).
 * @returns {Promise<TemporalDevServer>}
 */
export async function startTemporalDevServer({
  cliPath,
  largeMessages = false,
  log = logToStderr,
  dbFilename,
  namespace = 'default',
  ui = false,
  searchAttributes = FLOWGATE_SEARCH_ATTRIBUTES,
  dynamicConfig = {},
  extraArgs = [],
  readyTimeoutMs = 90_000,
  onUnexpectedExit,
} = {}) {
  const cli = cliPath ?? (await ensureTemporalCli({ log, largeMessages }));
  const dbPath = dbFilename ? resolve(dbFilename) : undefined;
  // The CLI checks the database's directory before creating the file.
  if (dbPath) mkdirSync(dirname(dbPath), { recursive: true });

  /** @param {number[]} ports */
  const argsFor = ([port, httpPort, metricsPort, uiPort]) => [
    ...devServerArgs({
      ip: LOOPBACK,
      ports: { port: /** @type {number} */ (port), httpPort: /** @type {number} */ (httpPort), metricsPort: /** @type {number} */ (metricsPort), uiPort },
      namespace,
      dbFilename: dbPath,
      searchAttributes,
      dynamicConfig,
    }),
    ...extraArgs,
  ];

  /**
   * Spawns the server and waits until it answers; kills it again if it never does.
   * @param {string[]} args
   * @param {string} address
   */
  const launchAndWait = async (args, address) => {
    const startedAt = Date.now();
    const running = launch(cli, args);
    const abandon = running.exited.then((info) => {
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
   * @param {() => Promise<{ args: string[], address: string }>} prepare called before each attempt.
   */
  const launchRetryingPortRaces = async (prepare) => {
    for (let attempt = 1; ; attempt += 1) {
      const { args, address } = await prepare();
      try {
        return await launchAndWait(args, address);
      } catch (error) {
        const output = /** @type {{ output?: string }} */ (error)?.output ?? '';
        if (attempt >= PORT_RACE_ATTEMPTS || !lostAPortRace(output)) throw error;
        log(`a port was taken before the Temporal dev server bound it; launching it again`);
        await new Promise((resolvePromise) => setTimeout(resolvePromise, PORT_RACE_BACKOFF_MS * attempt));
      }
    }
  };

  /** @type {number[]} */
  let ports = [];
  /** @type {import('./serverProcess.mjs').RunningProcess | undefined} */
  let current = await launchRetryingPortRaces(async () => {
    ports = await findFreePorts(ui ? 4 : 3);
    return { args: argsFor(ports), address: `${LOOPBACK}:${ports[0]}` };
  });
  /** @type {import('./serverProcess.mjs').RunningProcess | undefined} kept after a stop so its output can still be read. */
  let last = current;

  const [port, httpPort, metricsPort, uiPort] = /** @type {[number, number, number, number | undefined]} */ (ports);
  const address = `${LOOPBACK}:${port}`;
  const args = argsFor(ports);
  /** @type {Promise<void> | undefined} */
  let stopping;
  /** @type {Promise<void> | undefined} */
  let starting;

  const stop = () => {
    const running = current;
    if (!running) return Promise.resolve();
    stopping ??= terminate(running, STOP_GRACE_MS).finally(() => {
      if (current === running) current = undefined;
      stopping = undefined;
    });
    return stopping;
  };

  /** @param {NodeJS.Signals} [signal] */
  const kill = async (signal = 'SIGKILL') => {
    const running = current;
    if (!running) return;
    await killNow(running, signal);
    if (current === running) current = undefined;
  };

  const start = () => {
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
