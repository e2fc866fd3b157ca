import { textOption } from '../command.js';
import { renderResult } from '../render/runs.js';
import { apiCommand, exitCodeOf, jsonArgument, RUN_OPTION, secondsOption, type Values } from './api.js';
import type { CliContext, OptionSpec } from '../command.js';

/** `run` and `start`: the new run's options. */
const START_OPTIONS: Record<string, OptionSpec> = {
  input: { type: 'string', short: 'i', value: 'JSON', description: 'the input: JSON, @FILE for a file of JSON, - for standard input (default {})' },
  id: { type: 'string', value: 'WID', description: 'the workflow id to use (default: a new UUID)' },
  catalog: { type: 'string', value: 'C', description: "the catalog to run it in (default: the server's)" },
  'callback-url': { type: 'string', value: 'URL', description: 'where the server POSTs the result when the run closes' },
};

async function startFields(values: Values, context: CliContext) {
  const input = (await jsonArgument(values.input, 'input', context)) ?? {};
  const workflowId = textOption(values.id, 'id');
  const catalog = textOption(values.catalog, 'catalog');
  const callbackUrl = textOption(values['callback-url'], 'callback-url');
  return {
    input,
    fields: { ...(workflowId ? { workflowId } : {}), ...(catalog ? { catalog } : {}), ...(callbackUrl ? { callbackUrl } : {}) },
  };
}

export const runCommand = apiCommand({
  name: 'run',
  summary: 'start a run and wait for its result (exit 0 completed, 1 otherwise)',
  synopsis: 'WORKFLOW [--input JSON|@FILE|-] [--id WID] [--timeout S]',
  arguments: ['WORKFLOW'],
  description: [
    'Starts WORKFLOW with the input and waits until the run closes (POST /workflow/run, then long-polls of its',
    'result; a dropped connection never starts a second run). Prints the status line and the output, or the error.',
    'Exit status 0 when the run completed, 1 when it ended otherwise (failed, cancelled, terminated, timed out).',
  ].join('\n'),
  options: {
    ...START_OPTIONS,
    timeout: { type: 'string', value: 'S', description: 'give up waiting for the run after S seconds (exit 3, the run goes on; default: until it closes; a request unanswered 30 s past its wait ends it too)' },
  },
  async run(session, values, [workflow], context) {
    const { input, fields } = await startFields(values, context);
    const timeout = secondsOption(values.timeout, 'timeout');
    const result = await session.client.run(workflow!, input, { ...fields, ...(timeout === undefined ? {} : { timeoutMs: timeout * 1000 }) });
    if (session.json) session.printJson(result);
    else session.print(renderResult(result));
    return exitCodeOf(result.status);
  },
});

export const startCommand = apiCommand({
  name: 'start',
  summary: 'start a run without waiting; prints its workflow id and run id',
  synopsis: 'WORKFLOW [--input JSON|@FILE|-] [--id WID]',
  arguments: ['WORKFLOW'],
  description: 'Starts WORKFLOW with the input (POST /workflow, with an Idempotency-Key) and prints `WORKFLOW_ID RUN_ID`.',
  options: START_OPTIONS,
  async run(session, values, [workflow], context) {
    const { input, fields } = await startFields(values, context);
    const started = await session.client.start(workflow!, input, fields);
    if (session.json) session.printJson(started);
    else session.print(`${started.workflowId} ${started.runId}`);
    return 0;
  },
});

export const resultCommand = apiCommand({
  name: 'result',
  summary: "a run's result (exit 0 completed, 1 otherwise); --wait for an open run",
  synopsis: 'WORKFLOW_ID [--run RID] [--wait S]',
  arguments: ['WORKFLOW_ID'],
  description: [
    'Prints the result of the latest run of WORKFLOW_ID (or of --run RID): the status line and the output, or the',
    'error. An open run is an error (WorkflowNotCompletedError, exit 3) unless --wait gives it S seconds to close.',
    'Exit status 0 when the run completed, 1 when it ended otherwise.',
  ].join('\n'),
  options: {
    run: RUN_OPTION,
    wait: { type: 'string', value: 'S', description: 'wait up to S seconds for an open run to close' },
  },
  async run(session, values, [workflowId]) {
    const runId = textOption(values.run, 'run');
    const wait = secondsOption(values.wait, 'wait');
    const result = await session.client.result(workflowId!, { ...(runId ? { runId } : {}), ...(wait === undefined ? {} : { wait }) });
    if (session.json) session.printJson(result);
    else session.print(renderResult(result));
    return exitCodeOf(result.status);
  },
});
