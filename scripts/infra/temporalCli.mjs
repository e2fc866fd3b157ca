// Finds (or builds once) the Temporal CLI, whose `server start-dev` is the Temporal server the tests run against.
// The binary lives in the user's cache, never in the repo: it is ~250 MB and platform specific.
import { mkdirSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import { commandOutput, requireGo, runGoWithProgress } from './goTool.mjs';
import { buildLargeMessageTemporalCli, LARGE_MESSAGES_BUILD_MARKER } from './temporalCliLargeMessages.mjs';
import { devServer } from './product.mjs';

const { isExecutableFile } = devServer;

/** v1.6.0 and later carry a `replace` directive in go.mod, which `go install pkg@version` refuses; v1.5.1 has none. */
export const TEMPORAL_CLI_VERSION = 'v1.5.1';
export const TEMPORAL_CLI_PACKAGE = 'github.com/temporalio/cli/cmd/temporal';

/** @typedef {(line: string) => void} Log */

/** @type {Log} */
const logToStderr = (line) => {
  process.stderr.write(`${line}\n`);
};

/** Where built CLIs are kept between runs (and between checkouts); `flowgate dev` looks there too. */
export function temporalCliCacheDir() {
  return devServer.temporalCliCacheDir();
}

/**
 * `temporal --version` both proves the binary runs on this machine and names what we are using.
 * @param {string} cliPath
 */
async function readCliVersion(cliPath) {
  const output = await commandOutput(cliPath, ['--version']);
  const version = output.split('\n').find((line) => /temporal version/i.test(line));
  if (!version) throw new Error(`${cliPath} --version printed no version: ${output || 'no output'}`);
  return version.trim();
}

/**
 * The stock CLI, built with `go install`. Several minutes on 2 cores the first time; Go keeps its module and build
 * caches (GOMODCACHE, GOCACHE), so a rebuild is much quicker.
 * @param {string} binDir
 * @param {Log} log
 */
async function goInstallTemporalCli(binDir, log) {
  await requireGo('The Temporal CLI');
  mkdirSync(binDir, { recursive: true });
  const target = `${TEMPORAL_CLI_PACKAGE}@${TEMPORAL_CLI_VERSION}`;
  log(`building the Temporal CLI: go install ${target} (GOBIN=${binDir}); several minutes the first time`);
  await runGoWithProgress(['install', '-v', target], { env: { ...process.env, GOBIN: binDir }, log, what: 'the Temporal CLI' });
}

/**
 * @typedef {object} CliVariant
 * @property {string} envVar overrides the lookup when it names an executable.
 * @property {string} fileName in temporalCliCacheDir().
 * @property {(binDir: string, log: Log) => Promise<void>} build
 * @property {string} [marker] a cached binary whose --version lacks it is stale and rebuilt.
 */

/** @type {Record<'stock' | 'largeMessages', CliVariant>} */
const VARIANTS = {
  stock: { envVar: 'TEMPORAL_CLI', fileName: 'temporal', build: goInstallTemporalCli },
  // See temporalCliLargeMessages.mjs: the only way to get payloads over ~4 MiB through a real Temporal server.
  largeMessages: {
    envVar: 'TEMPORAL_CLI_LARGE_MESSAGES',
    fileName: 'temporal-large-messages',
    marker: LARGE_MESSAGES_BUILD_MARKER,
    build: (binDir, log) =>
      buildLargeMessageTemporalCli({ binPath: join(binDir, 'temporal-large-messages'), version: TEMPORAL_CLI_VERSION, log }),
  },
};

/**
 * @param {CliVariant} variant
 * @param {Log} log
 * @param {NodeJS.ProcessEnv} env
 */
async function locateOrBuild(variant, log, env) {
  const fromEnv = env[variant.envVar];
  if (fromEnv) {
    const path = isAbsolute(fromEnv) ? fromEnv : resolve(fromEnv);
    if (isExecutableFile(path)) {
      log(`Temporal CLI from ${variant.envVar}: ${path} (${await readCliVersion(path)})`);
      return path;
    }
    log(`${variant.envVar}=${fromEnv} is not an executable file; falling back to the cached build`);
  }

  const binDir = temporalCliCacheDir();
  const cached = join(binDir, variant.fileName);
  let version = isExecutableFile(cached) ? await readCliVersion(cached).catch(() => undefined) : undefined;
  if (!version || (variant.marker && !version.includes(variant.marker))) {
    await variant.build(binDir, log);
    version = await readCliVersion(cached);
  }
  log(`Temporal CLI: ${cached} (${version})`);
  return cached;
}

/** One lookup per process and variant: the answer cannot change while the tests run. */
/** @type {Map<string, Promise<string>>} */
const resolved = new Map();

/**
 * Absolute path of a working Temporal CLI binary.
 *
 * Stock (default): `$TEMPORAL_CLI` if it names an executable, else `~/.cache/flowgate/bin/temporal`, else one built
 * there now with `go install github.com/temporalio/cli/cmd/temporal@v1.5.1`.
 *
 * `largeMessages: true`: the same CLI with the 4 MiB gRPC request cap raised to 128 MiB, for payloads over ~4 MiB:
 * `$TEMPORAL_CLI_LARGE_MESSAGES`, else `~/.cache/flowgate/bin/temporal-large-messages`, else built there now.
 * @param {{ log?: Log, env?: NodeJS.ProcessEnv, largeMessages?: boolean }} [options]
 * @returns {Promise<string>}
 */
export function ensureTemporalCli({ log = logToStderr, env = process.env, largeMessages = false } = {}) {
  const variant = VARIANTS[largeMessages ? 'largeMessages' : 'stock'];
  const key = `${variant.fileName}\u0000${env[variant.envVar] ?? ''}\u0000${temporalCliCacheDir()}`;
  let answer = resolved.get(key);
  if (!answer) {
    answer = locateOrBuild(variant, log, env);
    resolved.set(key, answer);
    // A failed attempt (say, go was missing) may succeed later in the same process once fixed.
    answer.catch(() => resolved.delete(key));
  }
  return answer;
}
