// `temporal server start-dev` for the tests: the product's launcher (adapters/temporal/devServer, what `flowgate dev`
// runs), with the CLI found or built by ensureTemporalCli() when no cliPath is given (the large-message build too).
import { ensureTemporalCli } from './temporalCli.mjs';
import { devServer } from './product.mjs';

/** @typedef {(line: string) => void} Log */

/**
 * Starts a Temporal dev server (in memory unless `dbFilename`) on free 127.0.0.1 ports and waits until it answers;
 * every option of the product's startTemporalDevServer, plus:
 * @param {Omit<import('../../adapters/temporal/devServer/index.ts').StartTemporalDevServerOptions, 'cliPath'> & { cliPath?: string, largeMessages?: boolean }} [options]
 *   `cliPath` found or built with ensureTemporalCli() when omitted; `largeMessages` asks for the CLI built to accept
 *   gRPC requests up to 128 MiB (a stock server refuses any request over 4 MiB), built on first use.
 * @returns {Promise<import('../../adapters/temporal/devServer/index.ts').TemporalDevServer>}
 */
export async function startTemporalDevServer({ cliPath, largeMessages = false, ...options } = {}) {
  const log = options.log ?? ((line) => void process.stderr.write(`${line}\n`));
  return devServer.startTemporalDevServer({ ...options, log, cliPath: cliPath ?? (await ensureTemporalCli({ log, largeMessages })) });
}
