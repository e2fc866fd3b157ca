// Finds (or builds once) the Versity S3 Gateway, the S3-compatible server the remote-trace tests run against.
// Like the Temporal CLI, the binary lives in the user's cache (~/.cache/flowgate/bin), never in the repo.
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { requireGo, runGoWithProgress } from './goTool.mjs';
import { temporalCliCacheDir } from './temporalCli.mjs';
import { devServer } from './product.mjs';

const { isExecutableFile } = devServer;

/** Has no `replace` directive in go.mod, so `go install pkg@version` works. */
export const VERSITYGW_VERSION = 'v1.7.0';
export const VERSITYGW_PACKAGE = 'github.com/versity/versitygw/cmd/versitygw';

/** @typedef {(line: string) => void} Log */

/** @type {Log} */
const logToStderr = (line) => {
  process.stderr.write(`${line}\n`);
};

/**
 * The versitygw binary: `VERSITYGW` when it names an executable, else the cached build, else `go install` into the
 * cache (a couple of minutes the first time; Go keeps its module and build caches for the next time).
 * @param {{ log?: Log, env?: NodeJS.ProcessEnv }} [options]
 * @returns {Promise<string>}
 */
export async function ensureVersitygw({ log = logToStderr, env = process.env } = {}) {
  const override = env.VERSITYGW;
  if (override) {
    const path = resolve(override);
    // A wrong override is a configuration mistake; silently building another binary would hide it.
    if (!isExecutableFile(path)) throw new Error(`VERSITYGW=${override} is not an executable file`);
    return path;
  }
  const binDir = temporalCliCacheDir();
  const cached = join(binDir, 'versitygw');
  if (isExecutableFile(cached)) return cached;
  await requireGo('The Versity S3 Gateway (versitygw)');
  mkdirSync(binDir, { recursive: true });
  const target = `${VERSITYGW_PACKAGE}@${VERSITYGW_VERSION}`;
  log(`building the Versity S3 Gateway: go install ${target} (GOBIN=${binDir})`);
  await runGoWithProgress(['install', '-v', target], { env: { ...env, GOBIN: binDir }, log, what: 'versitygw' });
  if (!isExecutableFile(cached)) throw new Error(`go install ${target} succeeded but ${cached} is missing`);
  return cached;
}
