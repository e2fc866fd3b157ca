// Builds a Temporal CLI whose dev server accepts gRPC requests up to 128 MiB instead of 4 MiB.
//
// Why: Temporal's frontend (and its internal history/matching servers) never set grpc.MaxRecvMsgSize, so grpc-go's
// server default of 4 MiB caps every request: a worker completing a workflow with a 30 MiB result is refused
// ("grpc: received message after decompression larger than max 4194304") whatever limit.blobSize.error says, and no
// flag or dynamic config changes it. The stock CLI therefore cannot carry payloads over ~4 MiB.
//
// How: the same sources `go install ...cli/cmd/temporal@v1.5.1` uses (from the Go module proxy), with one constant
// in grpc-go raised, built with a local `replace`. `go install pkg@version` refuses replace directives, so this is a
// `go build` in a scratch copy under ~/.cache/flowgate, never in the repo.
import { chmodSync, cpSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { commandOutput, requireGo, runGoWithProgress } from './goTool.mjs';

/** @typedef {(line: string) => void} Log */

const CLI_MODULE = 'github.com/temporalio/cli';
const GRPC_MODULE = 'google.golang.org/grpc';
const RECEIVE_LIMIT_BEFORE = 'defaultServerMaxReceiveMessageSize = 1024 * 1024 * 4';
const RECEIVE_LIMIT_AFTER = 'defaultServerMaxReceiveMessageSize = 1024 * 1024 * 128';
/** Shows in `temporal --version`, so a patched binary can be told from a stock one. */
export const LARGE_MESSAGES_BUILD_MARKER = 'flowgate grpc-recv-128MiB';

/**
 * Source directory of a module version, downloaded through the Go module proxy if not cached yet.
 * @param {string} moduleAtVersion
 */
async function moduleSourceDir(moduleAtVersion) {
  const info = JSON.parse(await commandOutput('go', ['mod', 'download', '-json', moduleAtVersion]));
  if (!info.Dir) throw new Error(`go mod download ${moduleAtVersion} gave no source directory: ${JSON.stringify(info)}`);
  return /** @type {string} */ (info.Dir);
}

/**
 * The module cache is read-only; the copies must be writable to patch them and to delete them later.
 * @param {string} dir
 */
function makeWritable(dir) {
  chmodSync(dir, 0o755);
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) makeWritable(path);
    else if (entry.isFile()) chmodSync(path, 0o644);
  }
}

/**
 * Builds the patched CLI and installs it atomically at `binPath`.
 * @param {{ binPath: string, version: string, log: Log }} options `version`: the CLI tag, e.g. v1.5.1.
 */
export async function buildLargeMessageTemporalCli({ binPath, version, log }) {
  await requireGo('The large-message Temporal CLI');
  const workDir = join(homedir(), '.cache', 'flowgate', 'build', `temporal-cli-${version}-large-messages`);
  log(`building the large-message Temporal CLI (${CLI_MODULE}@${version} with grpc-go's 4 MiB server receive limit raised to 128 MiB) in ${workDir}`);

  const cliSource = await moduleSourceDir(`${CLI_MODULE}@${version}`);
  const grpcVersion = readFileSync(join(cliSource, 'go.mod'), 'utf8').match(/google\.golang\.org\/grpc (v\S+)/)?.[1];
  if (!grpcVersion) throw new Error(`cannot find the ${GRPC_MODULE} version in ${cliSource}/go.mod`);
  const grpcSource = await moduleSourceDir(`${GRPC_MODULE}@${grpcVersion}`);

  rmSync(workDir, { recursive: true, force: true });
  mkdirSync(workDir, { recursive: true });
  const cliDir = join(workDir, 'cli');
  const grpcDir = join(workDir, 'grpc');
  cpSync(cliSource, cliDir, { recursive: true });
  cpSync(grpcSource, grpcDir, { recursive: true });
  makeWritable(workDir);

  const serverGo = join(grpcDir, 'server.go');
  const source = readFileSync(serverGo, 'utf8');
  if (source.split(RECEIVE_LIMIT_BEFORE).length !== 2) {
    throw new Error(`${GRPC_MODULE}@${grpcVersion} server.go no longer contains "${RECEIVE_LIMIT_BEFORE}" exactly once; update the patch`);
  }
  writeFileSync(serverGo, source.replace(RECEIVE_LIMIT_BEFORE, RECEIVE_LIMIT_AFTER));
  await commandOutput('go', ['mod', 'edit', `-replace=${GRPC_MODULE}=../grpc`], { cwd: cliDir });

  const partial = `${binPath}.partial-${process.pid}`;
  mkdirSync(join(binPath, '..'), { recursive: true });
  const ldflags = [
    `-X ${CLI_MODULE}/temporalcli.Version=${version.replace(/^v/, '')}`,
    `-X '${CLI_MODULE}/temporalcli.buildInfo=${LARGE_MESSAGES_BUILD_MARKER}'`,
  ].join(' ');
  await runGoWithProgress(['build', '-v', '-mod=mod', '-ldflags', ldflags, '-o', partial, './cmd/temporal'], {
    cwd: cliDir,
    log,
    what: 'the large-message Temporal CLI',
  });
  // rename is atomic: a concurrent reader sees the old file or the whole new one, never half a binary.
  renameSync(partial, binPath);
  rmSync(workDir, { recursive: true, force: true });
}
