// The `flowgate` run commands (docs/cli.md) as a user runs them: the real command, a child process, against the
// suite's server on the engine under test. Each command's normal and --json output, the exit codes (0 completed,
// 1 ended otherwise, 2 usage, 3 API error or unreachable), input from a file and from standard input, the token.
import * as assert from 'uvu/assert';
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createFlowgateClient } from '../../adapters/client/index.js';
import { runCli } from '../../composition/cli/run.js';
import { contractSuite, UUID } from '../support/contract.js';
import { runFlowgate, type CliOutcome } from '../support/cliProcess.js';
import { uniqueId } from '../support/http.js';
import { eventually } from '../support/eventually.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const TOKEN = 'cli-secret-token-7f3a';
const test = contractSuite('flowgate run commands', { API_AUTH_TOKEN: TOKEN });

/** Every output of the suite, to prove the token is never printed. */
const everything: string[] = [];

/** `flowgate ARGS` with the suite's server and token unless `env` says otherwise; its output joins `everything`. */
async function flowgate(baseUrl: string, args: string[], options: { env?: Record<string, string | undefined>; stdin?: string } = {}): Promise<CliOutcome> {
  const outcome = await runFlowgate(baseUrl, TOKEN, args, options);
  everything.push(outcome.stdout, outcome.stderr);
  return outcome;
}


/**
 * Asks the API through the client until `ready` holds: on Temporal the run list lags behind a start, and a run's
 * worker may still be writing its trace file when the result is out.
 */
async function untilClientSees<T>(
  baseUrl: string,
  what: string,
  read: (client: ReturnType<typeof createFlowgateClient>) => Promise<T>,
  ready: (value: T) => boolean,
): Promise<T> {
  const client = createFlowgateClient({ baseUrl, token: TOKEN });
  try {
    return await eventually(what, async () => {
      const value = await read(client);
      return ready(value) ? value : undefined;
    }, { intervalMs: 100 });
  } finally {
    await client.close();
  }
}

/** Exit `code`, and stderr exactly one line matching `line` (no stack). */
function failsWith(outcome: CliOutcome, code: number, line: RegExp): void {
  assert.is(outcome.code, code, `exit ${code} expected:\n${outcome.stdout}\n${outcome.stderr}`);
  const lines = outcome.stderr.split('\n').filter(Boolean);
  assert.is(lines.length, 1, `one line on stderr:\n${outcome.stderr}`);
  assert.match(lines[0]!, line);
}

function succeeds(outcome: CliOutcome, code = 0): string {
  assert.is(outcome.code, code, `exit ${code} expected:\n${outcome.stdout}\n${outcome.stderr}`);
  assert.is(outcome.stderr, '');
  return outcome.stdout;
}

const parse = (outcome: CliOutcome): any => {
  const lines = outcome.stdout.trim().split('\n');
  assert.is(lines.length, 1, `--json prints one line:\n${outcome.stdout}`);
  return JSON.parse(lines[0]!);
};

test('run: the result and exit 0 when it completes, exit 1 when it fails; --json is the API answer', async ({ api }) => {
  const workflowId = uniqueId('cli-run');
  const human = succeeds(await flowgate(api.baseUrl, ['run', 'echo', '--input', '{"message":"hi"}', '--id', workflowId]));
  assert.match(human, new RegExp(`^completed  ${workflowId}  run [0-9a-f-]{36}\\n\\{\\n  "message": "hi"\\n\\}\\n$`));
  const json = parse(await flowgate(api.baseUrl, ['run', 'echo', '-i', '{"message":"again"}', '--json']));
  assert.is(json.v, '2');
  assert.is(json.status, 'completed');
  assert.equal(json.output, { message: 'again' });
  const failed = await flowgate(api.baseUrl, ['run', 'fails_in_workflow']);
  assert.is(failed.code, 1);
  assert.is(failed.stderr, '');
  assert.match(failed.stdout, /^failed  \S+  run [0-9a-f-]{36}\nerror: RangeError: workflow code gave up\n$/);
  const failedJson = await flowgate(api.baseUrl, ['run', 'fails_in_workflow', '--json']);
  assert.is(failedJson.code, 1);
  assert.is(parse(failedJson).error.name, 'RangeError');
});

test('input from @FILE and from standard input (-); a missing file and invalid JSON are usage errors (exit 2)', async ({ api }) => {
  const dir = await mkdtemp(join(tmpdir(), 'fg-cli-input-'));
  try {
    const file = join(dir, 'input.json');
    await writeFile(file, '{"message":"from a file"}');
    const [fromFile, fromStdin, missing, invalid, invalidFile] = await Promise.all([
      flowgate(api.baseUrl, ['run', 'echo', '--input', `@${file}`, '--json']),
      flowgate(api.baseUrl, ['run', 'echo', '--input', '-', '--json'], { stdin: '{"message":"from stdin"}\n' }),
      flowgate(api.baseUrl, ['run', 'echo', '--input', `@${join(dir, 'nope.json')}`]),
      flowgate(api.baseUrl, ['start', 'echo', '--input', '{message:'], {}),
      writeFile(join(dir, 'bad.json'), 'not json').then(() => flowgate(api.baseUrl, ['run', 'echo', '--input', `@${join(dir, 'bad.json')}`])),
    ]);
    assert.equal(parse(fromFile).output, { message: 'from a file' });
    assert.equal(parse(fromStdin).output, { message: 'from stdin' });
    failsWith(missing, 2, new RegExp(`^flowgate run: --input @${join(dir, 'nope.json').replace(/[.]/g, '\\.')}: no such file$`));
    failsWith(invalid, 2, /^flowgate start: --input is not valid JSON: /);
    failsWith(invalidFile, 2, /^flowgate run: --input @\S+bad\.json is not valid JSON: /);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('usage errors: a missing argument, an unknown option, reset without --step, a bad --limit: exit 2, one line', async ({ api }) => {
  const [noArgument, unknown, noStep, badLimit, extra] = await Promise.all([
    flowgate(api.baseUrl, ['status']),
    flowgate(api.baseUrl, ['runs', '--bogus']),
    flowgate(api.baseUrl, ['reset', 'some-id']),
    flowgate(api.baseUrl, ['runs', '--limit', 'many']),
    flowgate(api.baseUrl, ['status', 'a', 'b']),
  ]);
  failsWith(noArgument, 2, /^flowgate status: missing WORKFLOW_ID \(usage: flowgate status WORKFLOW_ID \[--run RID\]\)$/);
  failsWith(unknown, 2, /^flowgate runs: unknown option --bogus \(flowgate runs --help lists the options\)$/);
  failsWith(noStep, 2, /^flowgate reset: --step NAME is required/);
  failsWith(badLimit, 2, /^flowgate runs: --limit must be a whole number from 1 to 1000, got "many"$/);
  failsWith(extra, 2, /^flowgate status: unexpected argument b /);
});

test('API errors exit 3 with the error name, message and request id; --json prints the error body too', async ({ api }) => {
  const missing = uniqueId('cli-missing');
  const [human, json] = await Promise.all([flowgate(api.baseUrl, ['status', missing]), flowgate(api.baseUrl, ['result', missing, '--json'])]);
  failsWith(human, 3, new RegExp(`^flowgate status: WorkflowNotFoundError: .*${missing}.* \\(HTTP 404, request id \\S+\\)$`));
  assert.is(human.stdout, '');
  failsWith(json, 3, /^flowgate result: WorkflowNotFoundError: /);
  assert.is(parse(json).error, 'WorkflowNotFoundError');
});

test('a ValidationError: its line, then each issue as path: message; exit 3 (run and start alike)', async ({ api }) => {
  const [run, start] = await Promise.all([
    flowgate(api.baseUrl, ['run', 'echo', '--input', '{"message":1,"extra":true}']),
    flowgate(api.baseUrl, ['start', 'arithmetic', '--input', '{"n":"two"}']),
  ]);
  assert.is(run.code, 3, run.stderr);
  assert.is(run.stdout, '');
  assert.not.match(run.stderr, /\n\s+at /);
  assert.equal(run.stderr.split('\n').slice(1), [
    'flowgate run:   input.message: Invalid input: expected string, received number',
    'flowgate run:   input: Unrecognized key: "extra"',
    '',
  ]);
  assert.match(run.stderr.split('\n')[0]!, /^flowgate run: ValidationError: input does not match the input schema of workflow "echo" \(HTTP 400, request id \S+\)$/);
  assert.is(start.code, 3, start.stderr);
  assert.is(start.stderr.split('\n')[1], 'flowgate start:   input.n: Invalid input: expected number, received string');
});

test('without the token: 401 is exit 3 saying how to give it; an unreachable server is exit 3 naming the URL', async ({ api }) => {
  const [noToken, unreachable] = await Promise.all([
    flowgate(api.baseUrl, ['list'], { env: { FLOWGATE_TOKEN: undefined } }),
    flowgate(api.baseUrl, ['status', 'x', '--url', 'http://127.0.0.1:1']),
  ]);
  failsWith(noToken, 3, /^flowgate list: UnauthorizedError: .* \(HTTP 401, request id \S+\); give the token with --token or FLOWGATE_TOKEN$/);
  failsWith(unreachable, 3, /^flowgate status: cannot reach the API at http:\/\/127\.0\.0\.1:1 \(ECONNREFUSED\)/);
  const withFlag = await flowgate(api.baseUrl, ['list', '--token', TOKEN, '--json'], { env: { FLOWGATE_TOKEN: undefined } });
  assert.ok(parse(withFlag).workflows.some((workflow: { name: string }) => workflow.name === 'echo'));
});

test('list, start, status, input, runs, history: a table or fields, and --json', async ({ api }) => {
  const list = succeeds(await flowgate(api.baseUrl, ['list']));
  assert.match(list, /^WORKFLOW +DESCRIPTION\n/);
  assert.match(list, /\necho +Returns its input through one step\n/);
  const workflowId = uniqueId('cli-sleep');
  const started = succeeds(await flowgate(api.baseUrl, ['start', 'sleeper', '--input', '{"ms":600000}', '--id', workflowId]));
  const [, runId] = started.trim().split(' ');
  assert.match(runId!, UUID);
  assert.is(started, `${workflowId} ${runId}\n`);
  await untilClientSees(api.baseUrl, 'the run in the list of running sleepers', (client) => client.listRuns({ workflowName: 'sleeper', status: 'running', limit: 1000 }), (list) => list.runs.some((run) => run.runId === runId));
  // Two events at least (the start and the timer), so a page of one has a next page.
  await untilClientSees(api.baseUrl, 'its first two history events', (client) => client.history(workflowId, { runId: runId! }), (page) => page.events.length >= 2);
  const [status, statusJson, input, inputJson, runs, runsJson, history, historyJson] = await Promise.all([
    flowgate(api.baseUrl, ['status', workflowId]),
    flowgate(api.baseUrl, ['status', workflowId, '--run', runId!, '--json']),
    flowgate(api.baseUrl, ['input', workflowId]),
    flowgate(api.baseUrl, ['input', workflowId, '--json']),
    flowgate(api.baseUrl, ['runs', '--workflow', 'sleeper', '--status', 'running']),
    flowgate(api.baseUrl, ['runs', '--workflow', 'sleeper', '--limit', '1000', '--json']),
    flowgate(api.baseUrl, ['history', workflowId, '--page-size', '1']),
    flowgate(api.baseUrl, ['history', workflowId, '--run', runId!, '--json']),
  ]);
  assert.match(succeeds(status), new RegExp(`^workflowId: +${workflowId}\\nrunId: +${runId}\\nworkflow: +sleeper\\ncatalog: +\\S+\\nstatus: +running\\n`));
  assert.equal(parse(statusJson), { ...parse(statusJson), workflowId, runId, workflowName: 'sleeper', status: 'running', closedAt: null });
  assert.is(succeeds(input), '{\n  "ms": 600000\n}\n');
  assert.equal(parse(inputJson), { workflowId, runId, input: { ms: 600000 } });
  const table = succeeds(runs);
  assert.match(table, /^WORKFLOW ID +RUN ID +WORKFLOW +STATUS +STARTED +DURATION\n/);
  assert.match(table, new RegExp(`\\n${workflowId} +${runId} +sleeper +running +\\S+Z +\\S+\\n`));
  assert.ok(parse(runsJson).runs.some((run: { runId: string }) => run.runId === runId));
  const page = succeeds(history);
  assert.match(page, new RegExp(`^${workflowId}  run ${runId}  sleeper  running\\nID +TIME +TYPE +STEP +DETAIL\\n1 +\\S+ +workflow_started +`));
  assert.match(page, /\nnext page: --page-token \S+\n$/);
  assert.is(parse(historyJson).events[0].type, 'workflow_started');
  const stopped = succeeds(await flowgate(api.baseUrl, ['stop', workflowId]));
  assert.is(stopped, `cancellation requested: ${workflowId} run ${runId}\n`);
  const result = await flowgate(api.baseUrl, ['result', workflowId, '--wait', '20']);
  assert.is(result.code, 1, 'a cancelled run: exit 1');
  assert.match(result.stdout, new RegExp(`^cancelled  ${workflowId}  run ${runId}\\n`));
});

test('terminate and reset, normal and --json; result of an open run is exit 3', async ({ api }) => {
  const sleeperId = uniqueId('cli-term');
  const runId = parse(await flowgate(api.baseUrl, ['start', 'sleeper', '--input', '{"ms":600000}', '--id', sleeperId, '--json'])).runId;
  failsWith(await flowgate(api.baseUrl, ['result', sleeperId]), 3, /^flowgate result: WorkflowNotCompletedError: .*\(HTTP 424, request id \S+\)$/);
  const terminated = parse(await flowgate(api.baseUrl, ['terminate', sleeperId, '--reason', 'cli test', '--json']));
  assert.equal(terminated, { terminated: true, workflowId: sleeperId, runId });
  const result = await flowgate(api.baseUrl, ['result', sleeperId, '--json']);
  assert.is(result.code, 1);
  assert.is(parse(result).status, 'terminated');
  failsWith(await flowgate(api.baseUrl, ['terminate', sleeperId]), 3, /^flowgate terminate: WorkflowClosedError: /);

  const arithmeticId = uniqueId('cli-reset');
  const first = parse(await flowgate(api.baseUrl, ['run', 'arithmetic', '--input', '{"n":1}', '--id', arithmeticId, '--json']));
  const reset = succeeds(await flowgate(api.baseUrl, ['reset', arithmeticId, '--step', 'add_one', '--run', first.runId, '--reason', 'cli']));
  const newRunId = /^reset to after add_one: \S+ new run (\S+)\n$/.exec(reset)?.[1];
  assert.ok(newRunId && newRunId !== first.runId, reset);
  const again = parse(await flowgate(api.baseUrl, ['result', arithmeticId, '--run', newRunId, '--wait', '20', '--json']));
  assert.equal([again.status, again.output], ['completed', { result: 4 }]);
  const resetJson = parse(await flowgate(api.baseUrl, ['reset', arithmeticId, '--step', 'double', '--json']));
  assert.is(resetJson.workflowId, arithmeticId);
  assert.match(resetJson.runId, UUID);
});

test('rerun: a new run with the same input, under a new id or the one given; --json names the run it repeats', async ({ api }) => {
  const originalId = uniqueId('cli-rerun');
  const original = parse(await flowgate(api.baseUrl, ['run', 'arithmetic', '--input', '{"n":2}', '--id', originalId, '--json']));
  const printed = succeeds(await flowgate(api.baseUrl, ['rerun', originalId]));
  const [newId, newRunId] = printed.trim().split(' ');
  assert.ok(newId && newId !== originalId, printed);
  assert.match(newRunId ?? '', UUID);
  const rerunResult = parse(await flowgate(api.baseUrl, ['result', newId!, '--run', newRunId!, '--wait', '20', '--json']));
  assert.equal([rerunResult.status, rerunResult.input, rerunResult.output], ['completed', { n: 2 }, original.output]);
  const namedId = uniqueId('cli-rerun-named');
  const named = parse(await flowgate(api.baseUrl, ['rerun', originalId, '--run', original.runId, '--new-id', namedId, '--json']));
  assert.equal([named.workflowId, named.rerunOf], [namedId, { workflowId: originalId, runId: original.runId }]);
  failsWith(await flowgate(api.baseUrl, ['rerun', uniqueId('cli-rerun-missing')]), 3, /^flowgate rerun: WorkflowNotFoundError: /);
});

test('follow, piped: one JSON line per event until done, exit 0; feedback resumes the run', async ({ api }) => {
  const workflowId = uniqueId('cli-follow');
  succeeds(await flowgate(api.baseUrl, ['start', 'awaits_feedback', '--id', workflowId]));
  const following = flowgate(api.baseUrl, ['follow', workflowId]);
  const delivered = succeeds(await flowgate(api.baseUrl, ['feedback', workflowId, '--payload', '{"approved":true}']));
  assert.match(delivered, new RegExp(`^delivered: ${workflowId} run [0-9a-f-]{36}\\n$`));
  const followed = await following;
  assert.is(followed.code, 0, followed.stderr);
  const events = followed.stdout.trim().split('\n').map((line) => JSON.parse(line) as { event: string; id?: string; data: any });
  assert.is(events[0]!.event, 'workflow');
  assert.is(events[0]!.data.workflowId, workflowId);
  assert.equal(events.at(-1), { event: 'done', data: { status: 'completed' } });
  const types = events.filter((event) => event.event === 'history').map((event) => event.data.type);
  assert.is(types[0], 'workflow_started');
  assert.ok(types.includes('signal_received'), types.join(' '));
  assert.is(types.at(-1), 'workflow_completed');
  failsWith(await flowgate(api.baseUrl, ['feedback', workflowId, '--payload', '[1]']), 2, /^flowgate feedback: --payload must be a JSON object$/);
});

test('follow piped into a reader that stops after the first line (| head -n 1): it ends quietly, exit 0', async ({ api }) => {
  const workflowId = uniqueId('cli-pipe');
  succeeds(await flowgate(api.baseUrl, ['start', 'awaits_feedback', '--id', workflowId]));
  const env = { ...process.env, FLOWGATE_URL: api.baseUrl, FLOWGATE_TOKEN: TOKEN };
  const child = spawn(process.execPath, ['--import', 'tsx', 'composition/cli/main.ts', 'follow', workflowId], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  const killer = setTimeout(() => child.kill('SIGKILL'), 60_000);
  try {
    let stderr = '';
    child.stderr.on('data', (chunk) => (stderr += chunk));
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once('close', (code, signal) => resolve({ code, signal })));
    let read = '';
    const firstLine = new Promise<void>((resolve) => {
      child.stdout.on('data', (chunk) => {
        read += chunk;
        if (!read.includes('\n')) return;
        // The reader goes away, as head does: the pipe's read end is closed.
        child.stdout.destroy();
        resolve();
      });
    });
    await Promise.race([firstLine, exited]);
    assert.ok(child.stdout.destroyed, `follow ended before its first line: ${stderr}`);
    // What follow writes next (the events of the run the feedback resumes) meets the closed pipe.
    succeeds(await flowgate(api.baseUrl, ['feedback', workflowId, '--payload', '{"approved":true}']));
    assert.equal(await exited, { code: 0, signal: null });
    assert.is(stderr, '');
    assert.is(JSON.parse(read.split('\n')[0]!).event, 'workflow');
  } finally {
    clearTimeout(killer);
    child.kill('SIGKILL');
  }
});

test('follow a run that fails: exit 1; --json is the same lines', async ({ api }) => {
  const workflowId = uniqueId('cli-follow-fail');
  await flowgate(api.baseUrl, ['run', 'fails_in_step', '--input', '{"reason":"no"}', '--id', workflowId]);
  const followed = await flowgate(api.baseUrl, ['follow', workflowId, '--json']);
  assert.is(followed.code, 1, followed.stderr);
  const events = followed.stdout.trim().split('\n').map((line) => JSON.parse(line) as { event: string; data: any });
  assert.equal(events.at(-1), { event: 'done', data: { status: 'failed' } });
  assert.ok(events.some((event) => event.event === 'history' && event.data.type === 'step_failed' && event.data.stepName === 'reject_invoice'));
});

test('follow on a terminal: the step table redrawn in place, the last frame the closed run', async ({ api }) => {
  const workflowId = uniqueId('cli-follow-tty');
  await flowgate(api.baseUrl, ['run', 'arithmetic', '--input', '{"n":2}', '--id', workflowId]);
  let stdout = '';
  let stderr = '';
  const code = await runCli(['follow', workflowId], {
    env: { FLOWGATE_URL: api.baseUrl, FLOWGATE_TOKEN: TOKEN },
    stdout: (text) => void (stdout += text),
    stderr: (text) => void (stderr += text),
    entry: { execPath: process.execPath, execArgv: ['--import', 'tsx'], script: 'composition/cli/main.ts' },
    version: '0.0.0-test',
    stdoutIsTTY: true,
    terminalColumns: 200,
  });
  assert.is(code, 0, stderr);
  assert.is(stderr, '');
  const frames = stdout.split(/\x1b\[\d+A\r\x1b\[J/);
  assert.ok(frames.length > 2, 'redrawn per event');
  assert.not.match(stdout, /^\{/m, 'no JSON lines on a terminal');
  const last = frames.at(-1)!;
  assert.match(last, new RegExp(`^${workflowId}  run [0-9a-f-]{36}  arithmetic  completed  \\S+\\nSTEP +STATE +ATTEMPT +DURATION +PROGRESS\\nadd_one +completed +1 +\\S+\\ndouble +completed +1 +\\S+\\n$`));
});

test('follow on a terminal: a run waiting for feedback says since when and the command that sends it', async ({ api }) => {
  const workflowId = uniqueId('cli-follow-waits');
  succeeds(await flowgate(api.baseUrl, ['start', 'awaits_feedback', '--id', workflowId]));
  let stdout = '';
  let stderr = '';
  let sent: Promise<CliOutcome> | undefined;
  const code = await runCli(['follow', workflowId], {
    env: { FLOWGATE_URL: api.baseUrl, FLOWGATE_TOKEN: TOKEN },
    stdout: (text) => {
      stdout += text;
      // Sent once the table says the run waits: the run completes, and follow ends.
      if (!sent && text.includes('waiting for feedback since')) sent = flowgate(api.baseUrl, ['feedback', workflowId, '--payload', '{"ok":true}']);
    },
    stderr: (text) => void (stderr += text),
    entry: { execPath: process.execPath, execArgv: ['--import', 'tsx'], script: 'composition/cli/main.ts' },
    version: '0.0.0-test',
    stdoutIsTTY: true,
    terminalColumns: 200,
  });
  assert.is(code, 0, stderr);
  assert.ok(sent, `the table never said the run waits:\n${stdout}`);
  succeeds(await sent);
  const frames = stdout.split(/\x1b\[\d+A\r\x1b\[J/);
  const waiting = frames.find((frame) => frame.includes('waiting for feedback since'))!;
  assert.match(waiting, new RegExp(`\\nwaiting for feedback since \\d{4}-\\d\\d-\\d\\dT[\\d:.]+Z \\(\\S+ so far\\); send it with: flowgate feedback ${workflowId} --payload JSON\\n$`));
  assert.match(frames.at(-1)!, new RegExp(`^${workflowId}  run [0-9a-f-]{36}  awaits_feedback  completed  \\S+\\nno steps\\n$`));
});

test('trace: the steps as a timeline with durations; --json is the trace log', async ({ api }) => {
  const workflowId = uniqueId('cli-trace');
  const run = parse(await flowgate(api.baseUrl, ['run', 'arithmetic', '--input', '{"n":1}', '--id', workflowId, '--json']));
  await untilClientSees(api.baseUrl, 'the trace file with its data', (client) => client.traceLog(workflowId, run.runId), (log) => log.data !== undefined);
  const timeline = succeeds(await flowgate(api.baseUrl, ['trace', workflowId]));
  const lines = timeline.trimEnd().split('\n');
  assert.match(lines[0]!, new RegExp(`^arithmetic  ${workflowId}  run ${run.runId}  \\S+  closed$`));
  assert.match(lines[1]!, /^STEP +TIMELINE +DURATION +ATTEMPT +STATE +COST +TOKENS +HTTP$/);
  assert.match(lines[2]!, /^add_one +\|[ █]{30}\| +\d\S* +1 +ok /);
  assert.match(lines[3]!, /^double +\|[ █]{30}\| +\d\S* +1 +ok /);
  assert.match(lines[4]!, /^total /);
  const log = parse(await flowgate(api.baseUrl, ['trace', workflowId, '--run', run.runId, '--json']));
  assert.is(log.runId, run.runId);
  assert.equal(log.data.steps.map((step: { name: string }) => step.name), ['add_one', 'double']);
});

test('the token is never printed', () => {
  assert.ok(everything.length > 0);
  for (const output of everything) assert.not.ok(output.includes(TOKEN), output);
});

test.run();
