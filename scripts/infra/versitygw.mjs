// Runs the Versity S3 Gateway (posix backend in a temp dir) as a child process on a free loopback port, waits until
// it answers HTTP, and stops it: on request, on restart (same port, same data), and when this Node process exits.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureVersitygw } from './versitygwBinary.mjs';
import { devServer } from './product.mjs';

const { findFreePorts, LOOPBACK, killNow, launch, terminate } = devServer;

const STOP_GRACE_MS = 5_000;
const PORT_RACE_ATTEMPTS = 3;
const POLL_INTERVAL_MS = 100;

/** @type {(line: string) => void} */
const logToStderr = (line) => {
  process.stderr.write(`${line}\n`);
};

/**
 * Ready = any HTTP answer (an unsigned request gets an S3 error document, which proves the S3 router is up).
 * @param {import('../../adapters/temporal/devServer/index.ts').RunningProcess} running
 * @param {string} endpoint
 * @param {number} timeoutMs
 */
async function waitUntilServing(running, endpoint, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (running.hasExited()) {
      const info = await running.exited;
      const how = info.error ? `could not be started (${info.error.message})` : `exited with ${info.signal ?? `code ${info.code}`}`;
      throw Object.assign(new Error(`versitygw ${how} before it was ready:\n${running.output().trim() || '(no output)'}`), {
        output: running.output(),
      });
    }
    try {
      await fetch(endpoint, { signal: AbortSignal.timeout(1_000) });
      return;
    } catch {
      await new Promise((resolvePromise) => setTimeout(resolvePromise, POLL_INTERVAL_MS));
    }
  }
  throw new Error(`versitygw did not answer at ${endpoint} within ${timeoutMs} ms:\n${running.output().trim()}`);
}

/** @param {string} output */
const lostAPortRace = (output) => /address already in use|bind:/i.test(output);

/**
 * Starts a gateway with a fresh posix backend (data and sidecar metadata under one temp dir, removed by stop()).
 * @param {object} [options]
 * @param {string} [options.binaryPath] found or built with ensureVersitygw() when omitted.
 * @param {string} [options.accessKey] root access key, `flowgate-test` by default.
 * @param {string} [options.secretKey] root secret key.
 * @param {(line: string) => void} [options.log]
 * @param {number} [options.readyTimeoutMs] 30 s by default.
 * @param {(how: string, output: string) => void} [options.onUnexpectedExit]
 * @returns {Promise<import('./index.d.mts').VersityGateway>}
 */
export async function startVersityGateway({
  binaryPath,
  accessKey = 'flowgate-test',
  secretKey = 'flowgate-test-secret',
  log = logToStderr,
  readyTimeoutMs = 30_000,
  onUnexpectedExit,
} = {}) {
  const binary = binaryPath ?? (await ensureVersitygw({ log }));
  const rootDir = mkdtempSync(join(tmpdir(), 'flowgate-versitygw-'));
  const dataDir = join(rootDir, 'data');
  const metaDir = join(rootDir, 'meta');
  mkdirSync(dataDir);
  mkdirSync(metaDir);
  // Only the root credentials go to the child; the test process's AWS_* variables must not leak into it.
  const env = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ROOT_ACCESS_KEY: accessKey, ROOT_SECRET_KEY: secretKey };
  /** @param {number} port */
  const argsFor = (port) => ['--port', `${LOOPBACK}:${port}`, 'posix', '--sidecar', metaDir, dataDir];

  /** @param {number} port */
  const launchAndWait = async (port) => {
    const startedAt = Date.now();
    const running = launch(binary, argsFor(port), env);
    try {
      await waitUntilServing(running, `http://${LOOPBACK}:${port}/`, readyTimeoutMs);
    } catch (error) {
      await terminate(running, STOP_GRACE_MS);
      throw error;
    }
    void running.exited.then((info) => {
      if (!running.stopRequested) onUnexpectedExit?.(info.signal ?? `exit code ${info.code}`, running.output());
    });
    log(`versitygw ready at http://${LOOPBACK}:${port} in ${Date.now() - startedAt} ms (pid ${running.child.pid})`);
    return running;
  };

  let port = 0;
  /** @type {import('../../adapters/temporal/devServer/index.ts').RunningProcess | undefined} */
  let current;
  /** @type {import('../../adapters/temporal/devServer/index.ts').RunningProcess | undefined} */
  let last;
  try {
    for (let attempt = 1; !current; attempt += 1) {
      [port] = /** @type {[number]} */ (await findFreePorts(1));
      try {
        current = await launchAndWait(port);
        last = current;
      } catch (error) {
        const output = /** @type {{ output?: string }} */ (error)?.output ?? '';
        if (attempt >= PORT_RACE_ATTEMPTS || !lostAPortRace(output)) throw error;
        log('the chosen port was taken before versitygw bound it; retrying with a new port');
      }
    }
  } catch (error) {
    rmSync(rootDir, { recursive: true, force: true });
    throw error;
  }

  /** @type {Promise<void> | undefined} */
  let stopping;
  const stopProcess = () => {
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
  /** @param {boolean} frozen */
  const setFrozen = (frozen) => {
    if (current && !current.hasExited()) current.child.kill(frozen ? 'SIGSTOP' : 'SIGCONT');
  };
  const start = async () => {
    if (stopping) await stopping;
    if (current && !current.hasExited()) return;
    current = await launchAndWait(port);
    last = current;
  };

  return {
    endpoint: `http://${LOOPBACK}:${port}`,
    port,
    region: 'us-east-1',
    accessKey,
    secretKey,
    dataDir,
    isRunning: () => Boolean(current && !current.hasExited()),
    output: () => last?.output() ?? '',
    pause: () => {
      setFrozen(false);
      return stopProcess();
    },
    kill,
    freeze: () => setFrozen(true),
    thaw: () => setFrozen(false),
    start,
    stop: async () => {
      // A frozen process cannot act on SIGTERM until it runs again.
      setFrozen(false);
      await stopProcess();
      rmSync(rootDir, { recursive: true, force: true });
    },
  };
}
