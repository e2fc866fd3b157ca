import { actionName, groupHelpText, helpText, isCommandGroup, parseOptions, UsageError, type CliContext, type Command, type CommandGroup } from './command.js';
import { describeFailure } from './failures.js';
import { EXIT_USAGE } from './exitCodes.js';
import { serveCommand } from './serve.js';
import { workerCommand } from './worker.js';
import { devCommand } from './dev.js';
import { keysCommand } from './keys.js';
import { resultCommand, runCommand, startCommand } from './commands/runs.js';
import { historyCommand, inputCommand, listCommand, runsCommand, statusCommand, traceCommand, whoamiCommand } from './commands/reads.js';
import { followCommand } from './commands/follow.js';
import { feedbackCommand, rerunCommand, resetCommand, stopCommand, terminateCommand } from './commands/controls.js';
import { scheduleCommands } from './commands/schedules.js';

/** Every `flowgate` subcommand, in the order --help lists them: the server's and its keys', then those over the API (docs/cli.md). */
export const COMMANDS: readonly (Command | CommandGroup)[] = [
  serveCommand,
  workerCommand,
  devCommand,
  keysCommand,
  runCommand,
  startCommand,
  statusCommand,
  resultCommand,
  inputCommand,
  listCommand,
  runsCommand,
  followCommand,
  historyCommand,
  traceCommand,
  stopCommand,
  terminateCommand,
  resetCommand,
  feedbackCommand,
  rerunCommand,
  scheduleCommands,
  whoamiCommand,
];

/** Runs one command line; resolves with the exit code. Every mistake is one line on stderr, never a stack. */
export async function runCli(args: readonly string[], context: CliContext, commands: readonly (Command | CommandGroup)[] = COMMANDS): Promise<number> {
  const [name, ...afterName] = args;
  if (name === undefined) {
    context.stderr(overview(commands));
    return EXIT_USAGE;
  }
  if (name === '--help' || name === '-h' || name === 'help') {
    context.stdout(overview(commands));
    return 0;
  }
  if (name === '--version' || name === '-v') {
    context.stdout(`${context.version}\n`);
    return 0;
  }
  const entry = commands.find((candidate) => candidate.name === name);
  if (!entry) {
    context.stderr(`flowgate: unknown command ${JSON.stringify(name)} (commands: ${commands.map((c) => c.name).join(', ')}; flowgate --help)\n`);
    return EXIT_USAGE;
  }
  let command = entry as Command;
  let rest = afterName;
  if (isCommandGroup(entry)) {
    const [action, ...afterAction] = afterName;
    if (action === undefined) {
      context.stderr(groupHelpText(entry));
      return EXIT_USAGE;
    }
    if (action === '--help' || action === '-h' || action === 'help') {
      context.stdout(groupHelpText(entry));
      return 0;
    }
    const chosen = entry.actions.find((candidate) => actionName(entry, candidate) === action);
    if (!chosen) {
      const actions = entry.actions.map((candidate) => actionName(entry, candidate)).join(', ');
      context.stderr(`flowgate ${entry.name}: unknown action ${JSON.stringify(action)} (actions: ${actions}; flowgate ${entry.name} --help)\n`);
      return EXIT_USAGE;
    }
    command = chosen;
    rest = afterAction;
  }
  try {
    const { values, args: commandArgs } = parseOptions(command, rest);
    if (values.help) {
      context.stdout(helpText(command));
      return 0;
    }
    return await command.run(values, context, commandArgs);
  } catch (error) {
    const { lines, exitCode } = describeFailure(error);
    for (const line of lines) context.stderr(`flowgate ${command.name}: ${line}\n`);
    return exitCode;
  }
}

function overview(commands: readonly (Command | CommandGroup)[]): string {
  const width = Math.max(...commands.map((command) => command.name.length));
  return [
    'Usage: flowgate <command> [options]',
    '',
    'Commands:',
    ...commands.map((command) => `  ${command.name.padEnd(width)}  ${command.summary}`),
    '',
    'flowgate <command> --help describes a command and its options; docs/cli.md has them all.',
    '',
  ].join('\n');
}

export { UsageError };
