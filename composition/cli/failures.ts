import { ConfigError } from '../config.js';
import { MissingPackageError } from '../optionalPackages.js';
import { WorkflowsDirectoryError } from '../../adapters/workflowSources/errors.js';
import { FlowgateApiError } from '../../adapters/client/index.js';
import { UsageError } from './command.js';
import { DataDirectoryError } from '../../adapters/embedded/store/sqlite/dataDirErrors.js';
import { ApiUnreachableError } from './commands/api.js';
import { EXIT_API_ERROR, EXIT_FAILURE, EXIT_USAGE } from './exitCodes.js';

/**
 * What the user reads about a failure: one line per mistake, never a stack (the cause of an unexpected failure is
 * the message's first line; the error names are the product's own, docs/cli.md lists them).
 */
export function describeFailure(error: unknown): { lines: string[]; exitCode: number } {
  if (error instanceof ConfigError) return { lines: error.problems.map((problem) => `invalid configuration: ${problem}`), exitCode: EXIT_USAGE };
  if (error instanceof UsageError || error instanceof WorkflowsDirectoryError || error instanceof DataDirectoryError) return { lines: [error.message], exitCode: EXIT_USAGE };
  if (error instanceof MissingPackageError) return { lines: [error.message], exitCode: EXIT_FAILURE };
  if (error instanceof FlowgateApiError) return { lines: [describeApiError(error)], exitCode: EXIT_API_ERROR };
  if (error instanceof ApiUnreachableError) return { lines: [error.message], exitCode: EXIT_API_ERROR };
  const { code, message, address, port } = (error ?? {}) as { code?: unknown; message?: unknown; address?: unknown; port?: unknown };
  if (code === 'EADDRINUSE') {
    return { lines: [`${String(address)}:${String(port)} is already in use (give another --port, or --port 0 for a free one)`], exitCode: EXIT_FAILURE };
  }
  if (code === 'EACCES' && port !== undefined) {
    return { lines: [`not allowed to listen on ${String(address)}:${String(port)} (ports below 1024 need privileges; give another --port)`], exitCode: EXIT_FAILURE };
  }
  const text = typeof message === 'string' && message !== '' ? message : String(error);
  return { lines: [text.split('\n')[0]!], exitCode: EXIT_FAILURE };
}

/** `WorkflowNotFoundError: ... (HTTP 404, request id R)`, with what to do about a missing or wrong token. */
function describeApiError(error: FlowgateApiError): string {
  const firstLine = error.message.split('\n')[0]!;
  const hint = error.status === 401 ? '; give the token with --token or FLOWGATE_TOKEN' : '';
  return `${firstLine} (HTTP ${error.status}${error.requestId ? `, request id ${error.requestId}` : ''})${hint}`;
}
