// The `flowgate` command's mistakes: each is one line on stderr (never a stack) with exit code 2 for a wrong command
// line or configuration, 1 for what failed. In process through runCli (the same function the binary runs), plus the
// binary itself for its exit codes.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtemp, rm, writeFile, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runCli } from '../../composition/cli/run.js';
import type { CliContext } from '../../composition/cli/command.js';
import { CLI, runCommand } from './process.js';
import { createFlowgate } from '../../composition/embed/index.js';
import * as basic from '../fixtures/workflows/basic.js';
import { CapturingLogger } from '../support/logLines.js';

const CORE = fileURLToPath(new URL('../../core/definition/index.ts', import.meta.url));
const ZOD = fileURLToPath(import.meta.resolve('zod'));

async function cli(args: string[], env: Record<string, string | undefined> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const context: CliContext = {
    env: { PATH: process.env.PATH, ...env },
    stdout: (text) => void (stdout += text),
    stderr: (text) => void (stderr += text),
    entry: { execPath: process.execPath, execArgv: ['--import', 'tsx'], script: 'composition/cli/main.ts' },
    version: '0.0.0-test',
  };
  const code = await runCli(args, context);
  return { code, stdout, stderr };
}

function oneLine(stderr: string): string {
  const lines = stderr.split('\n').filter(Boolean);
  assert.is(lines.length, 1, `one line expected:\n${stderr}`);
  assert.not.match(stderr, /\n\s+at /);
  return lines[0]!;
}

const workflowModule = (name: string) => `
import { z } from ${JSON.stringify(ZOD)};
import { workflow } from ${JSON.stringify(CORE)};
export const w = workflow({ name: ${JSON.stringify(name)}, description: '', inputSchema: z.object({}), outputSchema: z.unknown(), fn: async () => null });
`;

const usage = suite('the command line');

usage('no command: the overview on stderr, exit 2; --help: on stdout, exit 0; --version', async () => {
  const none = await cli([]);
  assert.is(none.code, 2);
  assert.match(none.stderr, /Usage: flowgate <command>/);
  for (const name of ['serve', 'worker', 'dev']) assert.match(none.stderr, new RegExp(`\\n  ${name} `));
  const help = await cli(['--help']);
  assert.is(help.code, 0);
  assert.match(help.stdout, /Usage: flowgate <command>/);
  assert.equal(await cli(['--version']), { code: 0, stdout: '0.0.0-test\n', stderr: '' });
});

usage('--help on each command: its usage line and every option', async () => {
  for (const [name, options] of [
    ['serve', ['--workflows DIR', '--port N', '--host H']],
    ['worker', ['--workflows DIR', '--catalog C']],
    ['dev', ['--workflows DIR', '--port N', '--host H']],
  ] as const) {
    const { code, stdout, stderr } = await cli([name, '--help']);
    assert.is(code, 0);
    assert.is(stderr, '');
    assert.match(stdout, new RegExp(`^Usage: flowgate ${name} `));
    for (const option of options) assert.ok(stdout.includes(option), `${name} --help names ${option}`);
  }
});

usage('an unknown command, an unknown option, a missing value, a stray argument, a bad port: one line each, exit 2', async () => {
  const cases: [string[], RegExp][] = [
    [['srve'], /^flowgate: unknown command "srve" \(commands: serve, worker, dev, keys, run, start, status, result, input, list, runs, follow, history, trace, stop, terminate, reset, feedback, rerun, schedule, whoami; flowgate --help\)$/],
    [['serve', '--prot', '1'], /^flowgate serve: unknown option --prot \(flowgate serve --help lists the options\)$/],
    [['serve', '--port'], /^flowgate serve: option --port needs a value/],
    [['serve', 'workflows'], /^flowgate serve: unexpected argument workflows/],
    [['serve', '--port', '70000'], /^flowgate serve: --port must be a whole number from 0 to 65535/],
    [['worker', '--catalog', ''], /^flowgate worker: --catalog needs a value$/],
  ];
  for (const [args, expected] of cases) {
    const { code, stderr } = await cli(args);
    assert.is(code, 2, args.join(' '));
    assert.match(oneLine(stderr), expected);
  }
});

usage('--help on each run command: its usage line, its arguments and the --url, --token, --json and --timeout options', async () => {
  const commands: [string, string][] = [
    ['run', 'WORKFLOW'], ['start', 'WORKFLOW'], ['status', 'WORKFLOW_ID'], ['result', 'WORKFLOW_ID'], ['input', 'WORKFLOW_ID'], ['list', '[--catalog C]'],
    ['runs', '[--workflow NAME]'], ['follow', 'WORKFLOW_ID'], ['history', 'WORKFLOW_ID'], ['trace', 'WORKFLOW_ID'], ['stop', 'WORKFLOW_ID'],
    ['terminate', 'WORKFLOW_ID'], ['reset', 'WORKFLOW_ID --step NAME'], ['feedback', 'WORKFLOW_ID --payload'], ['rerun', 'WORKFLOW_ID'],
  ];
  for (const [name, synopsis] of commands) {
    const { code, stdout, stderr } = await cli([name, '--help']);
    assert.is(code, 0, name);
    assert.is(stderr, '');
    assert.ok(stdout.startsWith(`Usage: flowgate ${name} ${synopsis}`), stdout);
    for (const option of ['--url URL', '--token T', '--json', '--timeout S']) assert.ok(stdout.includes(option), `${name} --help names ${option}`);
  }
});

usage('schedule: its actions on --help and alone (exit 2); each action\'s usage line and the API options; mistakes are one line, exit 2', async () => {
  const help = await cli(['schedule', '--help']);
  assert.is(help.code, 0);
  assert.match(help.stdout, /^Usage: flowgate schedule <action> \[options\]/);
  const actions = ['create', 'list', 'describe', 'pause', 'unpause', 'trigger', 'backfill', 'delete'];
  for (const action of actions) assert.match(help.stdout, new RegExp(`\\n  ${action} +\\S`));
  const alone = await cli(['schedule']);
  assert.is(alone.code, 2);
  assert.is(alone.stderr, help.stdout);
  for (const [action, synopsis] of [
    ['create', 'SCHEDULE_ID --workflow NAME (--cron EXPR... | --every D [--offset D])'], ['list', '[--workflow NAME] [--limit N]'], ['describe', 'SCHEDULE_ID'],
    ['pause', 'SCHEDULE_ID [--note TEXT]'], ['unpause', 'SCHEDULE_ID [--note TEXT]'], ['trigger', 'SCHEDULE_ID [--overlap P]'],
    ['backfill', 'SCHEDULE_ID --start-at ISO --end-at ISO [--overlap P]'], ['delete', 'SCHEDULE_ID'],
  ]) {
    const { code, stdout, stderr } = await cli(['schedule', action!, '--help']);
    assert.is(code, 0, action);
    assert.is(stderr, '');
    assert.ok(stdout.startsWith(`Usage: flowgate schedule ${action} ${synopsis}`), stdout);
    for (const option of ['--url URL', '--token T', '--json', '--timeout S']) assert.ok(stdout.includes(option), `schedule ${action} --help names ${option}`);
  }
  const create = ['schedule', 'create', 'nightly', '--workflow', 'echo'];
  const cases: [string[], string][] = [
    [['schedule', 'crate'], 'flowgate schedule: unknown action "crate" (actions: create, list, describe, pause, unpause, trigger, backfill, delete; flowgate schedule --help)'],
    [['schedule', 'describe'], 'flowgate schedule describe: missing SCHEDULE_ID (usage: flowgate schedule describe SCHEDULE_ID)'],
    [['schedule', 'list', '--bogus'], 'flowgate schedule list: unknown option --bogus (flowgate schedule list --help lists the options)'],
    [['schedule', 'list', '--limit', '0'], 'flowgate schedule list: --limit must be a whole number from 1 to 1000, got "0"'],
    [['schedule', 'create', 'nightly', '--every', '1h'], 'flowgate schedule create: --workflow NAME is required: the workflow each fire starts'],
    [create, "flowgate schedule create: --cron EXPR or --every D is required: when the schedule fires (--cron '30 2 * * *', --every 15m)"],
    [[...create, '--cron', '0 3 * * *', '--every', '1h'], 'flowgate schedule create: give --cron or --every, not both'],
    [[...create, '--cron', '0 3 * * *', '--offset', '5m'], 'flowgate schedule create: --offset shifts the fires of --every: give --every too'],
    [[...create, '--every', '1h', '--input', '{}', '--input-file', 'in.json'], 'flowgate schedule create: give --input or --input-file, not both'],
    [[...create, '--every', '1h', '--input-file', '/nonexistent/in.json'], 'flowgate schedule create: --input-file /nonexistent/in.json: no such file'],
    [[...create, '--every', '1h', '--overlap', 'queue'], 'flowgate schedule create: --overlap must be one of skip, buffer_one, buffer_all, cancel_other, terminate_other, allow_all, got "queue"'],
    [[...create, '--every', '1h', '--jitter', 'soon'], 'flowgate schedule create: --jitter must be a duration such as 30s, 15m, 1h30m, 1d, or a number of seconds, got "soon"'],
    [[...create, '--every', '1h', '--catchup-window', '1.5'], 'flowgate schedule create: --catchup-window must be a duration such as 30s, 15m, 1h30m, 1d, or a whole number of seconds, got "1.5"'],
    [[...create, '--every', '1h', '--start-at', 'tomorrow'], 'flowgate schedule create: --start-at is an ISO 8601 date and time, e.g. 2027-01-31T00:00:00Z, got "tomorrow"'],
    [['schedule', 'backfill', 'nightly', '--start-at', '2026-01-01T00:00:00Z'], 'flowgate schedule backfill: --start-at ISO and --end-at ISO are required: the range to backfill'],
    [['schedule', 'trigger', 'nightly', '--overlap', 'all'], 'flowgate schedule trigger: --overlap must be one of skip, buffer_one, buffer_all, cancel_other, terminate_other, allow_all, got "all"'],
  ];
  for (const [args, expected] of cases) {
    const { code, stderr } = await cli(args);
    assert.is(code, 2, args.join(' '));
    assert.is(oneLine(stderr), expected);
  }
});

usage('a run command with a URL that is not http(s): exit 2, one line naming where it came from', async () => {
  const flag = await cli(['status', 'w', '--url', 'ftp://example.test']);
  assert.is(flag.code, 2);
  assert.is(oneLine(flag.stderr), 'flowgate status: --url must be an http or https URL, got "ftp://example.test"');
  const variable = await cli(['list'], { FLOWGATE_URL: 'not a url' });
  assert.is(variable.code, 2);
  assert.is(oneLine(variable.stderr), 'flowgate list: FLOWGATE_URL must be an http or https URL, got "not a url"');
  // A password in the URL is refused without being printed.
  const secret = await cli(['status', 'w'], { FLOWGATE_URL: 'http://alice:s3cret@127.0.0.1:9' });
  assert.is(secret.code, 2);
  assert.is(oneLine(secret.stderr), 'flowgate status: FLOWGATE_URL must not carry a user name or password; give the token with --token or FLOWGATE_TOKEN');
});

usage('a token a header cannot carry (a CRLF file\'s trailing carriage return): exit 2, one line that does not print it', async () => {
  const fromEnv = await cli(['status', 'w'], { FLOWGATE_TOKEN: 's3cr3t-tok\r' });
  assert.is(fromEnv.code, 2);
  assert.is(oneLine(fromEnv.stderr), 'flowgate status: FLOWGATE_TOKEN must be printable ASCII without spaces (is there a trailing carriage return?)');
  const fromFlag = await cli(['status', 'w', '--token', 's3cr3t-t\u20ack']);
  assert.is(fromFlag.code, 2);
  assert.match(oneLine(fromFlag.stderr), /--token must be printable ASCII/);
  assert.not.match(fromEnv.stderr + fromFlag.stderr, /s3cr3t/);
});

usage('an API that cannot be reached (a closed loopback port): exit 3, the URL without its query; with --json one JSON line on stdout', async () => {
  const { createServer } = await import('node:net');
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as import('node:net').AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  const url = `http://127.0.0.1:${port}/?token=abc123`;
  const plain = await cli(['status', 'w', '--url', url]);
  assert.is(plain.code, 3);
  assert.is(oneLine(plain.stderr), `flowgate status: cannot reach the API at http://127.0.0.1:${port}/ (ECONNREFUSED); is the server running? (--url or FLOWGATE_URL)`);
  const json = await cli(['status', 'w', '--url', url, '--json']);
  assert.is(json.code, 3);
  assert.equal(JSON.parse(json.stdout), { error: 'ApiUnreachableError', message: `cannot reach the API at http://127.0.0.1:${port}/ (ECONNREFUSED); is the server running? (--url or FLOWGATE_URL)` });
  assert.not.match(json.stdout + json.stderr + plain.stderr, /abc123/);
});

usage.run();

const mistakes = suite<{ dir: string }>('serve: what the project gets wrong');

mistakes.before(async (context) => {
  context.dir = await mkdtemp(join(tmpdir(), 'fg-cli-'));
});

mistakes.after(async (context) => {
  await rm(context.dir, { recursive: true, force: true });
});

mistakes('a missing workflows directory: one line naming it, exit 2', async ({ dir }) => {
  const missing = join(dir, 'nowhere');
  const { code, stderr } = await cli(['serve', '--workflows', missing, '--port', '0'], { TRACE_DIR: join(dir, 'traces') });
  assert.is(code, 2);
  assert.is(oneLine(stderr), `flowgate serve: workflows directory ${missing} does not exist (give another with --workflows DIR or WORKFLOWS_DIR)`);
});

mistakes('a workflow file with a syntax error: one line naming the file, its line and column and the compiler\'s message, exit 1', async ({ dir }) => {
  const workflows = join(dir, 'broken');
  await mkdir(workflows);
  await writeFile(join(workflows, 'ok.ts'), workflowModule('fine'));
  // workflowModule's text ends on line 5; the faulty statement is line 6, its `;` in column 19.
  await writeFile(join(workflows, 'typo.ts'), `${workflowModule('typo')}\nconst x: number = ;\n`);
  const { code, stderr } = await cli(['serve', '--workflows', workflows, '--port', '0'], { TRACE_DIR: join(dir, 'traces') });
  assert.is(code, 1);
  const typo = join(workflows, 'typo.ts');
  assert.is(oneLine(stderr), `flowgate serve: ${typo} does not load: ${typo}:6:19: Unexpected ";"`);
});

mistakes('a syntax error in a step file a workflow imports: the line names the step file where the compiler stopped', async ({ dir }) => {
  const project = join(dir, 'broken-step');
  await mkdir(join(project, 'workflows'), { recursive: true });
  await mkdir(join(project, 'steps'));
  await writeFile(join(project, 'steps', 'mail.ts'), `import { step } from ${JSON.stringify(CORE)};\nexport const send = step({ name: 'send', fn: async (to: string) => { return to +; } });\n`);
  await writeFile(
    join(project, 'workflows', 'notify.ts'),
    `${workflowModule('notify').replace('fn: async () => null', 'fn: async () => send(\'a@example.test\')')}import { send } from '../steps/mail.js';\n`,
  );
  const { code, stderr } = await cli(['serve', '--workflows', join(project, 'workflows'), '--port', '0'], { TRACE_DIR: join(dir, 'traces') });
  assert.is(code, 1);
  const stepFile = join(project, 'steps', 'mail.ts');
  assert.is(oneLine(stderr), `flowgate serve: ${join(project, 'workflows', 'notify.ts')} does not load: ${stepFile}:2:81: Unexpected ";"`);
});

mistakes('two workflows with one name: one line naming both files, exit 1', async ({ dir }) => {
  const workflows = join(dir, 'twice');
  await mkdir(workflows);
  await writeFile(join(workflows, 'a.ts'), workflowModule('orders'));
  await writeFile(join(workflows, 'b.mts'), workflowModule('orders'));
  const { code, stderr } = await cli(['serve', '--workflows', workflows, '--port', '0'], { TRACE_DIR: join(dir, 'traces') });
  assert.is(code, 1);
  const line = oneLine(stderr);
  assert.match(line, /^flowgate serve: workflow name "orders" is defined twice: /);
  assert.ok(line.includes(join(workflows, 'a.ts')) && line.includes(join(workflows, 'b.mts')), line);
});

mistakes('invalid configuration: one line per problem, exit 2', async ({ dir }) => {
  const { code, stderr } = await cli(['serve', '--workflows', dir], { PORT: 'x', MAX_BODY_BYTES: '-1', DEPRECATED_ENDPOINTS: 'maybe' });
  assert.is(code, 2);
  const lines = stderr.split('\n').filter(Boolean);
  assert.equal(lines.map((line) => line.split(':').slice(0, 3).join(':')), [
    'flowgate serve: invalid configuration: PORT',
    'flowgate serve: invalid configuration: MAX_BODY_BYTES',
    'flowgate serve: invalid configuration: DEPRECATED_ENDPOINTS',
  ]);
  assert.not.match(stderr, /\n\s+at /);
  assert.ok(lines[0]!.endsWith('(got "x")') && lines[1]!.endsWith('(got "-1")'), 'the value given is repeated, as an option\'s is');
  const portWins = await cli(['serve', '--workflows', dir, '--port', 'x']);
  assert.match(oneLine(portWins.stderr), /^flowgate serve: --port must be/, 'an option is checked before its variable');
});

mistakes('the port already taken: one line, exit 1', async ({ dir }) => {
  const { createServer } = await import('node:net');
  const blocker = createServer();
  await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', () => resolve()));
  const port = (blocker.address() as { port: number }).port;
  try {
    await mkdir(join(dir, 'empty'), { recursive: true });
    const { code, stderr } = await cli(['serve', '--workflows', join(dir, 'empty'), '--port', String(port)], { TRACE_DIR: join(dir, 'traces'), LOG_LEVEL: 'silent' });
    assert.is(code, 1);
    assert.is(oneLine(stderr), `flowgate serve: 127.0.0.1:${port} is already in use (give another --port, or --port 0 for a free one)`);
  } finally {
    blocker.close();
  }
});

mistakes('dev without a Temporal CLI: one line saying where it looked and how to get one', async ({ dir }) => {
  const { code, stderr } = await cli(['dev', '--workflows', dir], { TEMPORAL_CLI: join(dir, 'no-such-temporal') });
  assert.is(code, 1);
  assert.match(oneLine(stderr), /^flowgate dev: needs the Temporal CLI \(temporal server start-dev\), found in none of: TEMPORAL_CLI=.*no-such-temporal \(not an executable file\); install the Temporal CLI there, or set TEMPORAL_CLI to its path \(docs\/cli\.md, flowgate dev\)$/);
});

mistakes('the binary itself: exit codes 2 and 1 with the same single lines', async ({ dir }) => {
  const usageError = await runCommand(process.execPath, [...CLI, 'serve', '--bogus']);
  assert.is(usageError.code, 2);
  assert.match(oneLine(usageError.stderr), /^flowgate serve: unknown option --bogus/);
  const failure = await runCommand(process.execPath, [...CLI, 'dev'], { TEMPORAL_CLI: join(dir, 'nothing'), TEMPORAL_ADDRESS: '' });
  assert.is(failure.code, 1);
  assert.match(oneLine(failure.stderr), /^flowgate dev: needs the Temporal CLI/);
});

mistakes.run();

const keys = suite('keys create');

keys('prints a new secret once and an entry the server takes: the key does what its scopes and limits say', async () => {
  const { code, stdout, stderr } = await cli(['keys', 'create', '--id', 'ci', '--scopes', 'start,read', '--catalog', 'main', '--workflow', 'echo', '--expires', '2099-01-31T00:00:00Z']);
  assert.is(code, 0, stderr);
  assert.is(stderr, '');
  const secret = /^  (fgk_[A-Za-z0-9_-]{43})$/m.exec(stdout)?.[1];
  assert.ok(secret, stdout);
  const entryLine = stdout.split('\n').find((line) => line.startsWith('  {'));
  const entry = JSON.parse(entryLine!);
  assert.equal(Object.keys(entry), ['id', 'sha256', 'scopes', 'catalogs', 'workflows', 'expiresAt']);
  assert.equal({ ...entry, sha256: undefined }, { id: 'ci', sha256: undefined, scopes: ['start', 'read'], catalogs: ['main'], workflows: ['echo'], expiresAt: '2099-01-31T00:00:00Z' });
  assert.match(entry.sha256, /^[0-9a-f]{64}$/);
  assert.is(stdout.split(secret!).length, 2, 'the secret is printed once');
  assert.not.ok(JSON.stringify(entry).includes(secret!), 'the entry holds no secret');

  const json = await cli(['keys', 'create', '--id', 'dashboard', '--scopes', 'read', '--json']);
  assert.is(json.code, 0);
  const created = JSON.parse(json.stdout) as { secret: string; entry: Record<string, unknown> };
  assert.equal(Object.keys(created.entry), ['id', 'sha256', 'scopes']);
  assert.is.not(created.secret, secret, 'a new secret each time');

  const flowgate = await createFlowgate({ workflows: Object.values(basic), apiKeys: [entry, created.entry as never], logger: new CapturingLogger(), env: { ENGINE: 'memory' } });
  try {
    const call = async (key: string, method: string, path: string, body?: unknown) =>
      (await flowgate.fetchHandler(new Request(`http://127.0.0.1${path}`, { method, headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, ...(body ? { body: JSON.stringify(body) } : {}) }))).status;
    assert.is(await call(secret!, 'POST', '/workflow', { workflowName: 'echo', input: { message: 'hi' } }), 200);
    assert.is(await call(secret!, 'POST', '/workflow', { workflowName: 'sleeper', input: { ms: 1 } }), 403);
    assert.is(await call(created.secret, 'GET', '/workflow/runs'), 200);
    assert.is(await call(created.secret, 'POST', '/workflow', { workflowName: 'echo', input: { message: 'hi' } }), 403);
    assert.is(await call(`${created.secret}x`, 'GET', '/workflow/runs'), 401);
  } finally {
    await flowgate.close();
  }
});

keys('mistakes: one line each, exit 2, and no secret printed', async () => {
  const cases: [string[], RegExp][] = [
    [['keys', 'create', '--scopes', 'read'], /^flowgate keys: --id is required/],
    [['keys', 'create', '--id', 'ci'], /^flowgate keys: --scopes is required: a comma-separated list of read, start, control, admin$/],
    [['keys', 'create', '--id', 'ci', '--scopes', 'read,deploy'], /^flowgate keys: --scopes: "deploy" is not a scope \(read, start, control, admin\)$/],
    [['keys', 'create', '--id', 'ci', '--scopes', 'read,'], /^flowgate keys: --scopes is a comma-separated list without empty names/],
    [['keys', 'create', '--id', 'my key', '--scopes', 'read'], /^flowgate keys: --id is 1 to 64 letters, digits/],
    [['keys', 'create', '--id', 'ci', '--scopes', 'read', '--expires', 'next week'], /^flowgate keys: --expires is an ISO 8601 date and time/],
    [['keys', 'create', '--id', 'ci', '--scopes', 'read', '--expires', '2020-01-01T00:00:00Z'], /^flowgate keys: --expires 2020-01-01T00:00:00Z is in the past/],
    [['keys', 'rotate', '--id', 'ci', '--scopes', 'read'], /^flowgate keys: unknown action "rotate" \(actions: create\)$/],
    [['keys'], /^flowgate keys: missing ACTION/],
  ];
  for (const [args, expected] of cases) {
    const { code, stdout, stderr } = await cli(args);
    assert.is(code, 2, args.join(' '));
    assert.match(oneLine(stderr), expected);
    assert.is(stdout, '', args.join(' '));
  }
  const help = await cli(['keys', '--help']);
  assert.is(help.code, 0);
  for (const option of ['--id ID', '--scopes S[,S]', '--catalog C[,C]', '--workflow NAME[,NAME]', '--expires ISO', '--json']) assert.ok(help.stdout.includes(option), option);
});

keys.run();
