import { ConfigError } from '../config.js';
import { MissingPackageError } from '../optionalPackages.js';
import { WorkflowsDirectoryError } from '../../adapters/workflowSources/sourceErrors.js';
import { FlowgateApiError, FlowgateTimeoutError, type ValidationIssue } from '../../adapters/client/index.js';
import { UsageError } from './command.js';
import { DataDirectoryError } from '../../adapters/embedded/store/sqlite/dataDirErrors.js';
import { AccessKeyFileError } from '../../adapters/access/keyFile.js';
import { ApiUnreachableError } from './commands/api.js';
import { EXIT_API_ERROR, EXIT_FAILURE, EXIT_USAGE } from './exitCodes.js';

/**
 * What the user reads about a failure: one line per mistake, never a stack (the cause of an unexpected failure is
 * the message's first line; the error names are the product's own, docs/cli.md lists them).
 */
export function describeFailure(error: unknown): { lines: string[]; exitCode: number } {
  if (error instanceof ConfigError) return { lines: error.problems.map((problem) => `invalid configuration: ${problem}`), exitCode: EXIT_USAGE };
  if (error instanceof AccessKeyFileError) return { lines: [`invalid configuration: ${error.message}`], exitCode: EXIT_USAGE };
  if (error instanceof UsageError || error instanceof WorkflowsDirectoryError || error instanceof DataDirectoryError) return { lines: [error.message], exitCode: EXIT_USAGE };
  if (error instanceof MissingPackageError) return { lines: [error.message], exitCode: EXIT_FAILURE };
  if (error instanceof FlowgateApiError) return { lines: [describeApiError(error), ...describeIssues(error.issues)], exitCode: EXIT_API_ERROR };
  if (error instanceof ApiUnreachableError || error instanceof FlowgateTimeoutError) return { lines: [error.message], exitCode: EXIT_API_ERROR };
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

/**
 * `WorkflowNotFoundError: ... (HTTP 404, request id R)`, with what to do about a missing or wrong token. An answer
 * that is not the API's (a proxy's HTML page, another server) is named by its status, URL and content type, and asks
 * whether the address is right.
 */
function describeApiError(error: FlowgateApiError): string {
  if (!error.fromApi) {
    const what = error.message.slice(`${error.error}: `.length).split('\n')[0]!;
    return `${what}${error.requestId ? ` (request id ${error.requestId})` : ''}; is --url (or FLOWGATE_URL) the API's address?`;
  }
  const firstLine = error.message.split('\n')[0]!;
  const hint = error.status === 401 ? '; give the token with --token or FLOWGATE_TOKEN' : error.status === 403 ? '; `flowgate whoami` shows what this key may do' : '';
  return `${firstLine} (HTTP ${error.status}${error.requestId ? `, request id ${error.requestId}` : ''})${hint}`;
}

/** A ValidationError shows at most this many issues; `--json` prints them all. */
const MOST_ISSUES_SHOWN = 20;

/** A ValidationError's issues, one line each, `  input.items[0].sku: message`, indented under the error's line. */
export function describeIssues(issues: readonly ValidationIssue[]): string[] {
  const lines = issues.slice(0, MOST_ISSUES_SHOWN).map((issue) => `  ${issuePath(issue.path)}: ${issue.message.split('\n')[0]}`);
  if (issues.length > MOST_ISSUES_SHOWN) lines.push(`  ... and ${issues.length - MOST_ISSUES_SHOWN} more issues (--json prints them all)`);
  return lines;
}

/** `input.items[0].sku`; a key that is not a plain name is quoted (`input["a b"]`); the body itself is `(body)`. */
function issuePath(path: readonly (string | number)[]): string {
  if (path.length === 0) return '(body)';
  return path
    .map((segment, index) => {
      if (typeof segment === 'number') return `[${segment}]`;
      if (/^[A-Za-z_$][\w$]*$/.test(segment)) return index === 0 ? segment : `.${segment}`;
      return `[${JSON.stringify(segment)}]`;
    })
    .join('');
}
