import { readFile } from 'node:fs/promises';
import { createFlowgateClient, FlowgateApiError, FlowgateTimeoutError, type FlowgateClient } from '../../../adapters/client/index.js';
import { DEFAULT_REQUEST_TIMEOUT_MS, isSendableToken } from '../../../adapters/client/transport.js';
import { textOption, UsageError, type CliContext, type Command, type OptionSpec, type OptionValue } from '../command.js';

/** Where the API is when neither --url nor FLOWGATE_URL says: `flowgate serve`'s default address. */
export const DEFAULT_API_URL = 'http://127.0.0.1:3001';

/** The options every command that calls the API takes. */
export const API_OPTIONS: Record<string, OptionSpec> = {
  url: { type: 'string', value: 'URL', description: `the API's address (FLOWGATE_URL; default ${DEFAULT_API_URL})` },
  token: { type: 'string', value: 'T', description: "the API's bearer token (FLOWGATE_TOKEN)" },
  json: { type: 'boolean', description: "print the API's JSON answer, one line, for scripts" },
  timeout: {
    type: 'string',
    value: 'S',
    description: `give up when the API has not answered in S seconds (default ${DEFAULT_REQUEST_TIMEOUT_MS / 1000}; counted after a --wait; follow: its first byte)`,
  },
};

/** The API could not be reached at all (refused, unknown host, reset): exit 3 like an error answer. */
export class ApiUnreachableError extends Error {
  override name = 'ApiUnreachableError';
}

export type Values = Record<string, OptionValue>;

/** What a command over the API gets: the client, whether to print JSON, and how to print it. */
export interface ApiSession {
  client: FlowgateClient;
  json: boolean;
  print(text: string): void;
  printJson(value: unknown): void;
}

/**
 * A command over the API: its options plus --url, --token, --json and --timeout, a client for its run, closed
 * afterwards. An error answer with --json is also printed as the server's JSON body on stdout; a connection that
 * fails is an ApiUnreachableError naming the URL. A command with a --timeout of its own (`run`: the whole wait for
 * the run) gives it its own meaning; its requests keep the default timeout.
 */
export function apiCommand(
  command: Omit<Command, 'run'> & { run(session: ApiSession, values: Values, args: readonly string[], context: CliContext): Promise<number> },
): Command {
  return {
    ...command,
    options: { ...command.options, ...withoutKeys(API_OPTIONS, Object.keys(command.options)) },
    async run(values, context, args) {
      const url = textOption(values.url, 'url') ?? nonEmpty(context.env.FLOWGATE_URL) ?? DEFAULT_API_URL;
      const token = textOption(values.token, 'token') ?? nonEmpty(context.env.FLOWGATE_TOKEN);
      // Said without the token. A carriage return from a CRLF env file is the likely case; undici would refuse the
      // header, which read like a connection that failed.
      if (token !== undefined && !isSendableToken(token)) {
        throw new UsageError(`${values.token !== undefined ? '--token' : 'FLOWGATE_TOKEN'} must be printable ASCII without spaces (is there a trailing carriage return?)`);
      }
      const timeoutSeconds = 'timeout' in command.options ? undefined : secondsOption(values.timeout, 'timeout');
      let client: FlowgateClient;
      try {
        client = createFlowgateClient({ baseUrl: url, token, requestTimeoutMs: timeoutSeconds === undefined ? undefined : timeoutSeconds * 1000 });
      } catch {
        const source = values.url !== undefined ? '--url' : 'FLOWGATE_URL';
        // Said without the URL, which would repeat the password.
        if (carriesCredentials(url)) throw new UsageError(`${source} must not carry a user name or password; give the token with --token or FLOWGATE_TOKEN`);
        throw new UsageError(`${source} must be an http or https URL, got ${JSON.stringify(url)}`);
      }
      const json = values.json === true;
      const session: ApiSession = {
        client,
        json,
        print: (text) => context.stdout(text.endsWith('\n') ? text : `${text}\n`),
        printJson: (value) => context.stdout(`${JSON.stringify(value)}\n`),
      };
      try {
        return await command.run(session, values, args, context);
      } catch (error) {
        if (error instanceof FlowgateApiError) {
          if (json && error.body !== undefined && typeof error.body === 'object') session.printJson(error.body);
          throw error;
        }
        const code = connectionFailure(error);
        const failure =
          code === undefined ? error : new ApiUnreachableError(`cannot reach the API at ${withoutQuery(url)} (${code}); is the server running? (--url or FLOWGATE_URL)`);
        // No answer to print: a script reading stdout still gets one JSON line saying what happened.
        if (json && (failure instanceof ApiUnreachableError || failure instanceof FlowgateTimeoutError)) {
          session.printJson({ error: failure.name, message: failure.message });
        }
        throw failure;
      } finally {
        await client.close();
      }
    },
  };
}

/** The URL for a message, as given, without its query and fragment, which may carry a secret. */
function withoutQuery(url: string): string {
  return url.replace(/[?#][\s\S]*$/, '');
}

/** `options` without the keys a command defines itself. */
function withoutKeys(options: Record<string, OptionSpec>, keys: readonly string[]): Record<string, OptionSpec> {
  return Object.fromEntries(Object.entries(options).filter(([name]) => !keys.includes(name)));
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value;
}

/** The code of an error that means the connection failed (node's or undici's), else undefined. */
function connectionFailure(error: unknown): string | undefined {
  const seen = [error, (error as { cause?: unknown })?.cause, ...(((error as { errors?: unknown[] })?.errors) ?? [])];
  for (const candidate of seen) {
    const code = (candidate as { code?: unknown } | undefined)?.code;
    if (typeof code === 'string' && (/^E[A-Z]+$/.test(code) || code.startsWith('UND_ERR'))) return code;
  }
  return undefined;
}

/**
 * A JSON value given on the command line: the text itself, `@FILE` for a file's content, `-` for standard input.
 * Every mistake is a UsageError naming the option.
 */
export async function jsonArgument(value: OptionValue, option: string, context: CliContext): Promise<unknown> {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || value === '') throw new UsageError(`--${option} needs a value: JSON, @FILE or -`);
  if (value.startsWith('@')) return jsonFile(value.slice(1), `--${option} ${value}`);
  let text = value;
  let source = `--${option}`;
  if (value === '-') {
    if (!context.readStdin) throw new UsageError(`--${option} -: there is no standard input to read`);
    text = await context.readStdin();
    source = `--${option} - (standard input)`;
  }
  return parseJson(text, source);
}

/** The JSON in a file; `source` names it in each mistake (`--input @FILE`, `--input-file FILE`). */
export async function jsonFile(path: string, source: string): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    const code = (error as { code?: string }).code;
    throw new UsageError(`${source}: ${code === 'ENOENT' ? 'no such file' : `cannot read the file (${code ?? String(error)})`}`);
  }
  return parseJson(text, source);
}

function parseJson(text: string, source: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new UsageError(`${source} is not valid JSON: ${(error as Error).message.split('\n')[0]}`);
  }
}

/** A whole number option within bounds, or a UsageError naming it. */
export function integerOption(value: OptionValue, name: string, min: number, max: number): number | undefined {
  if (value === undefined) return undefined;
  const text = String(value);
  if (!/^\d+$/.test(text) || Number(text) < min || Number(text) > max) throw new UsageError(`--${name} must be a whole number from ${min} to ${max}, got ${JSON.stringify(text)}`);
  return Number(text);
}

/** A number of seconds (fractions allowed), or a UsageError naming the option. */
export function secondsOption(value: OptionValue, name: string): number | undefined {
  if (value === undefined) return undefined;
  const text = String(value);
  if (!/^\d+(\.\d+)?$/.test(text) || Number(text) <= 0) throw new UsageError(`--${name} must be a positive number of seconds, got ${JSON.stringify(text)}`);
  return Number(text);
}

/** The run --run names, or the latest run of the workflow id (asked from its status). */
export async function runIdOf(session: ApiSession, workflowId: string, values: Values): Promise<string> {
  const runId = textOption(values.run, 'run');
  if (runId !== undefined) return runId;
  return (await session.client.status(workflowId)).runId;
}

export const RUN_OPTION: OptionSpec = { type: 'string', value: 'RID', description: 'the run (default: the latest run of the workflow id)' };

/** Exit status of a closed run: 0 completed, 1 anything else (failed, cancelled, terminated, timed out). */
export function exitCodeOf(status: string): number {
  return status === 'completed' ? 0 : 1;
}

function carriesCredentials(url: string): boolean {
  try {
    const parsed = new URL(url);
    return parsed.username !== '' || parsed.password !== '';
  } catch {
    return false;
  }
}
