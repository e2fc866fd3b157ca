import { parseArgs, type ParseArgsConfig } from 'node:util';

/** A mistake in how the command was called: one line on stderr, exit code 2. */
export class UsageError extends Error {
  override name = 'UsageError';
}

export type OptionSpec = NonNullable<ParseArgsConfig['options']>[string] & {
  /** The value's placeholder in the help text (`DIR`, `N`); a flag without it takes no value. */
  value?: string;
  description: string;
};

/** An option's value as parsed: text, a flag, or every text of an option given more than once (`multiple`). */
export type OptionValue = string | boolean | string[] | undefined;

/** What a command sees of the process: injected, so tests drive commands without a child process. */
export interface CliContext {
  env: Record<string, string | undefined>;
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  /** The `flowgate` executable's own entry, for commands that start more of themselves (dev). */
  entry: { execPath: string; execArgv: readonly string[]; script: string };
  version: string;
  /** All of standard input as text (`--input -`); absent where there is none to read. */
  readStdin?: () => Promise<string>;
  /** stdout is a terminal: `follow` redraws in place instead of writing JSON lines. */
  stdoutIsTTY?: boolean;
  /** The terminal's width, when stdout is one: `follow` cuts its lines to it so a redraw stays in place. */
  terminalColumns?: number;
}

/**
 * One subcommand of `flowgate`: its usage line, options and what it does. The table in run.ts lists them; a
 * command added later (issue: run, start, status over the HTTP client) is one more entry.
 */
export interface Command {
  name: string;
  summary: string;
  /** The arguments after the command's name, for the usage line: `[--workflows DIR] [--port N]`. */
  synopsis: string;
  /** Paragraphs of --help after the usage line and before the options. */
  description: string;
  options: Record<string, OptionSpec>;
  /** The positional arguments it takes, all required, by their placeholders (`WORKFLOW_ID`); none without it. */
  arguments?: readonly string[];
  /** Resolves with the exit code when the command is done (a server: once it has shut down). */
  run(values: Record<string, OptionValue>, context: CliContext, args: readonly string[]): Promise<number>;
}

/**
 * A command whose first argument names what it does: `flowgate schedule create ID ...`. Each action is a Command of
 * its own, named with the group (`schedule create`), so its usage line, --help and mistakes name both words.
 */
export interface CommandGroup {
  name: string;
  summary: string;
  description: string;
  actions: readonly Command[];
}

export function isCommandGroup(entry: Command | CommandGroup): entry is CommandGroup {
  return 'actions' in entry;
}

/** An action's own word: `create` of `schedule create`. */
export function actionName(group: CommandGroup, action: Command): string {
  return action.name.slice(group.name.length + 1);
}

/** `flowgate schedule --help`: the group's description, then each action's usage line and summary. */
export function groupHelpText(group: CommandGroup): string {
  const width = Math.max(...group.actions.map((action) => actionName(group, action).length));
  return [
    `Usage: flowgate ${group.name} <action> [options]`,
    '',
    group.description,
    '',
    'Actions:',
    ...group.actions.map((action) => `  ${actionName(group, action).padEnd(width)}  ${action.summary}`),
    '',
    `flowgate ${group.name} <action> --help describes an action and its options.`,
    '',
  ].join('\n');
}

export interface ParsedCommandLine {
  values: Record<string, OptionValue>;
  args: string[];
}

/** The command's options and arguments, every mistake a UsageError naming the option or the argument. */
export function parseOptions(command: Command, args: readonly string[]): ParsedCommandLine {
  const options = Object.fromEntries(
    Object.entries({ ...command.options, help: HELP_OPTION }).map(([name, spec]) => [name, { type: spec.type, ...(spec.short ? { short: spec.short } : {}), ...(spec.multiple ? { multiple: true } : {}) }]),
  ) as NonNullable<ParseArgsConfig['options']>;
  const wanted = command.arguments ?? [];
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({ args: [...args], options, strict: true, allowPositionals: wanted.length > 0 });
  } catch (error) {
    throw new UsageError(`${describeParseError(error)} (flowgate ${command.name} --help lists the options)`);
  }
  const values = parsed.values as Record<string, OptionValue>;
  if (values.help) return { values, args: parsed.positionals };
  if (parsed.positionals.length < wanted.length) {
    throw new UsageError(`missing ${wanted.slice(parsed.positionals.length).join(' ')} (usage: flowgate ${command.name} ${command.synopsis})`);
  }
  if (parsed.positionals.length > wanted.length) throw new UsageError(`unexpected argument ${parsed.positionals[wanted.length]} (usage: flowgate ${command.name} ${command.synopsis})`);
  return { values, args: parsed.positionals };
}

const HELP_OPTION: OptionSpec = { type: 'boolean', short: 'h', description: 'print this help' };

function describeParseError(error: unknown): string {
  const { code, message } = error as { code?: string; message?: string };
  const option = /'(-[^']*)'/.exec(message ?? '')?.[1];
  switch (code) {
    case 'ERR_PARSE_ARGS_UNKNOWN_OPTION':
      return `unknown option ${option ?? ''}`.trim();
    case 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE':
      return option ? `option ${option.split(' ')[0]} needs a value` : 'an option is missing its value';
    case 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL':
      return `unexpected argument ${/'([^']*)'/.exec(message ?? '')?.[1] ?? ''}`.trim();
    default:
      return (message ?? String(error)).split('\n')[0]!;
  }
}

export function helpText(command: Command): string {
  const rows = Object.entries({ ...command.options, help: HELP_OPTION }).map(([name, spec]) => [
    `${spec.short ? `-${spec.short}, ` : '    '}--${name}${spec.value ? ` ${spec.value}` : ''}`,
    spec.description,
  ]);
  const width = Math.max(...rows.map(([left]) => left!.length));
  return [
    `Usage: flowgate ${command.name} ${command.synopsis}`.trimEnd(),
    '',
    command.description,
    '',
    'Options:',
    ...rows.map(([left, right]) => `  ${left!.padEnd(width)}  ${right}`),
    '',
  ].join('\n');
}

/** A string option as a port number, or a UsageError naming it. */
export function portOption(value: OptionValue, name: string): string | undefined {
  if (value === undefined) return undefined;
  const text = String(value);
  if (!/^\d+$/.test(text) || Number(text) > 65535) throw new UsageError(`--${name} must be a whole number from 0 to 65535 (0 picks a free port), got ${JSON.stringify(text)}`);
  return text;
}

/** A string option that must not be empty. */
export function textOption(value: OptionValue, name: string): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || value.trim() === '') throw new UsageError(`--${name} needs a value`);
  return value;
}
