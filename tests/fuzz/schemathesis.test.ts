import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import { ensureSchemathesis, runSchemathesis, SCHEMATHESIS_VERSION } from '../../scripts/infra/index.mjs';
import { startTestApi, type TestApi } from '../support/engines.js';
import { FIXTURE_CATALOGS } from '../support/fixtureCatalogs.js';
import { call, type TestResponse } from '../support/http.js';
import { eventually } from '../support/eventually.js';

/*
 * Contract fuzzing. schemathesis (pinned with its whole dependency tree in scripts/infra/schemathesis-requirements.txt,
 * installed into a venv under ~/.cache/flowgate) reads GET /openapi.json of a real server and sends every operation
 * a bounded number of generated requests, valid and invalid, in its phases: boundary values of every schema
 * (coverage), random ones (fuzzing) and chains along inferred links (stateful). Every response must be a non-5xx
 * with a status, content type, headers and body the document gives that operation; the schema-invalid requests
 * must be refused with a 4xx, the schema-valid ones not with a 400 (with the exceptions in schemathesisConfig); and an operation that needs the
 * token must refuse a request without it.
 *
 * The server has a token and schemathesis sends it, so generated data reaches validation and the engine; it also
 * sends each operation once without it (ignored_auth). The deployment is a healthy one: catalogs `main` and `other`
 * with their workers running (the contract suites' stopped `idle` catalog answers a designed 503, tested there), so
 * any 5xx is a bug.
 *
 * Random strings almost never name a workflow, run or step that exists, which would leave the 200 answers of most
 * operations untested. So before fuzzing the test starts runs of its own (finished, failed, continued as new, with a
 * child, and open ones waiting on a webhook), and schemathesis draws ids, names, catalogs and step names from
 * dictionaries of those (plus a few edge values) for about half of the values it generates. The fuzzed requests
 * then read, stop, terminate, reset and resume those runs, and start new ones of real workflows with generated input.
 *
 * No operation is excluded. The history endpoints are server-sent event streams only with `Accept:
 * text/event-stream`, which the document does not list as a parameter (OpenAPI 3.1 ignores `Accept` parameters), so
 * schemathesis fuzzes their JSON form (tests/contract/history.test.ts covers the stream; an open run's stream would
 * hold the connection until the run closes). POST /workflow/run waits at most
 * RUN_TIMEOUT_MAX_SECONDS (2 s here, and the generated document says so) for a run, so a generated run of a
 * waiting workflow ends in its documented 408 instead of holding the connection.
 *
 * Run alone: FLOWGATE_TEST_ENGINE=memory node --import tsx node_modules/uvu/bin.js tests/fuzz (temporal: with
 * FLOWGATE_TEST_ENGINE=temporal and TEMPORAL_ADDRESS of a dev server). FUZZ_MAX_EXAMPLES and FUZZ_SEED change the
 * bounds below for a longer hunt, FUZZ_CHECKS=<list> runs other checks, FUZZ_REPORT_DIR=<dir> keeps a HAR file of
 * every exchange. A failure prints schemathesis's report, with a curl command per finding.
 */

const TOKEN = 'fuzz-Secret-t0ken_7d2e41';
/** Fixed, so a run generates the same requests every time (only the seeded runs' ids differ). */
const SEED = Number(process.env.FUZZ_SEED ?? 20260716);
/** Test cases per operation and phase: 30 to 60 s per engine on 2 cores. */
const MAX_EXAMPLES = Number(process.env.FUZZ_MAX_EXAMPLES ?? 40);
/**
 * The whole schemathesis run; it normally takes a fraction of this, but on Temporal, beside two other suites on two
 * cores, it took over 7 minutes.
 */
const RUN_LIMIT_MS = 12 * 60_000;
const CHECKS = (
  process.env.FUZZ_CHECKS ??
  [
    // The contract: no 5xx, and only what the document says for the operation and status.
    'not_a_server_error',
    'status_code_conformance',
    'content_type_conformance',
    'response_schema_conformance',
    'response_headers_conformance',
    // The request side of the document: what it calls invalid is refused, what it calls valid is not (see CONFIG).
    'negative_data_rejection',
    'positive_data_acceptance',
    'missing_required_header',
    'ignored_auth',
    'unsupported_method',
    'allow_header_conformance',
  ].join(',')
).split(',');
const AUTH = { authorization: `Bearer ${TOKEN}` };

/** Workflows that finish (or wait) quickly whatever their input; none calls out of the machine. */
const WORKFLOW_NAMES = [
  'any_input',
  'echo',
  'arithmetic',
  'fails_in_step',
  'fails_in_workflow',
  'fails_with_cause',
  'countdown',
  'parent',
  'step_then_waits',
  'times_out',
  'other_only',
];
/**
 * Schedule changes: a schema-valid body may still break a rule beyond its shape (a cron expression, a time zone, an
 * offset longer than its interval, an input the workflow refuses), a 400 like a start's; a list's page token is
 * refused like the runs list's. What they create is deleted
 * after the run, so no schedule of the fuzzing fires into what follows.
 */
const SCHEDULE_WRITES = ['createSchedule', 'updateSchedule', 'backfillSchedule', 'listSchedules'];

/** Deletes every schedule the fuzzing left (Temporal keeps them, and they would fire into later suites). */
async function deleteSchedules(api: TestApi): Promise<void> {
  for (let page = 0; page < 100; page += 1) {
    const listed = await call(api, 'GET', '/schedules?limit=1000', { headers: AUTH });
    const schedules = (listed.body?.schedules ?? []) as { scheduleId: string }[];
    if (schedules.length === 0) return;
    for (const { scheduleId } of schedules) await call(api, 'DELETE', `/schedules/${encodeURIComponent(scheduleId)}`, { headers: AUTH });
  }
}

/** The two catalogs, and a name with a NUL (Temporal's SQL visibility store failed on one: a 503 once). */
const CATALOGS = ['main', 'other', 'main\u0000'];
const STEP_NAMES = ['add_one', 'double', 'echo_step', 'reject_invoice'];
/** 1000 characters, 2000 bytes of UTF-8: over Temporal's default limit.maxIDLength (a 500 once). */
const LONG_WORKFLOW_ID = 'é'.repeat(1000);

interface SeededRun {
  workflowId: string;
  runId: string;
}

/** Polls an authenticated GET until it answers 200 and `done` holds (tests/support/http.ts's helpers send no token). */
async function poll(api: TestApi, path: string, done: (response: TestResponse) => boolean): Promise<TestResponse> {
  let last = '';
  return eventually(
    () => `seeding: ${path} (last answer ${last})`,
    async () => {
      const response = await call(api, 'GET', path, { headers: AUTH });
      last = `${response.status} ${response.text}`;
      return response.status === 200 && done(response) && response;
    },
    { timeoutMs: 30_000, intervalMs: 50 },
  );
}

/**
 * Runs in every state an operation distinguishes, under three workflow ids only, so that a pinned operation's id and
 * run id, drawn independently from the dictionaries, belong together a third of the time: `fuzz-closed` holds one
 * closed run after another (completed, failed, continued as new, with a child), and each `fuzz-open-N` a completed
 * run and then one that waits on a webhook after a completed step (stop, terminate, reset and feedback have work).
 */
async function seedRuns(api: TestApi): Promise<SeededRun[]> {
  const runs: SeededRun[] = [];
  const start = async (workflowId: string, workflowName: string, input: Record<string, unknown>): Promise<string> => {
    const response = await call(api, 'POST', '/workflow', { json: { workflowName, workflowId, input }, headers: AUTH });
    if (response.status !== 200) throw new Error(`seeding ${workflowName}: ${response.status} ${response.text}`);
    runs.push({ workflowId, runId: response.body.runId });
    return response.body.runId;
  };
  const runToEnd = async (workflowId: string, workflowName: string, input: Record<string, unknown>): Promise<void> => {
    const runId = await start(workflowId, workflowName, input);
    const { body } = await poll(api, `/workflow/${workflowId}/status`, ({ body: status }) => status.status !== 'running');
    // A continue-as-new chain's latest run is a run of its own.
    if (body.runId !== runId) runs.push({ workflowId, runId: body.runId });
  };
  await runToEnd('fuzz-closed', 'echo', { message: 'seeded' });
  await runToEnd('fuzz-closed', 'arithmetic', { n: 41 });
  await runToEnd('fuzz-closed', 'fails_in_step', { reason: 'seeded' });
  await runToEnd('fuzz-closed', 'fails_with_cause', { amount: 12.5 });
  await runToEnd('fuzz-closed', 'countdown', { n: 2 });
  await runToEnd('fuzz-closed', 'parent', { n: 1 });
  await runToEnd('fuzz-closed', 'any_input', { nested: [1, 'two', { three: null }], unicode: 'ünïcødé ✓' });
  for (const workflowId of ['fuzz-open-1', 'fuzz-open-2']) {
    await runToEnd(workflowId, 'arithmetic', { n: 1 });
    await start(workflowId, 'step_then_waits', { n: 1 });
    await poll(api, `/workflow/${workflowId}/history?pageSize=200`, ({ body }) =>
      body.events.some((event: { type: string }) => event.type === 'step_completed'),
    );
  }
  return runs;
}

const tomlList = (values: readonly string[]): string => `[${values.map((value) => JSON.stringify(value)).join(', ')}]`;

/**
 * schemathesis.toml: the dictionaries, and the answers positive_data_acceptance must accept besides its defaults
 * (2xx, 401, 403, 404, 409, 429). Valid by the document but refused by design, for reasons the document cannot
 * express as a schema: 408 (a run outlived `timeout`) and 424 (a result of an open run, a workflow in another
 * catalog) depend on the state of a run; and a 400 where a value is checked against something outside the document:
 * a page token (opaque, signed, bound to its filter), a workflow input (each workflow's own input schema, which
 * GET /workflow/list publishes; a rerun checks the repeated run's input against it again), or free-form JSON (input,
 * feedback payload) with a `__proto__` key (or a `constructor` key holding a `prototype`) at any depth, refused for
 * every body (the 400's description says so).
 *
 * The bulk rerun is fuzzed with `dryRun: true` only: every real call would rerun every run its filter matches, the
 * runs earlier calls started included, doubling the runs with each call (up to 10,000 a call) until the server spends
 * the run's time starting them. tests/contract/rerun.test.ts covers the real one.
 */
function schemathesisConfig(runs: readonly SeededRun[]): string {
  const workflowIds = [...new Set(runs.map((run) => run.workflowId)), LONG_WORKFLOW_ID];
  const runIds = runs.map((run) => run.runId);
  const accepted = ['2xx', '401', '403', '404', '408', '409', '424', '429'];
  return [
    '[checks.positive_data_acceptance]',
    `expected-statuses = ${tomlList(accepted)}`,
    '',
    '[[operations]]',
    `include-operation-id = ${tomlList(['listRuns', 'getHistory', 'getHistoryOfRun', 'runWorkflow', 'startWorkflow', 'sendFeedback', 'rerunRun', ...SCHEDULE_WRITES])}`,
    `checks.positive_data_acceptance.expected-statuses = ${tomlList([...accepted, '400'])}`,
    '',
    '[[operations]]',
    `include-operation-id = ${tomlList(['rerunRuns'])}`,
    'parameters = { "body.dryRun" = true }',
    '',
    '[dictionaries.workflow_ids]',
    `values = ${tomlList(workflowIds)}`,
    '[dictionaries.run_ids]',
    `values = ${tomlList(runIds)}`,
    '[dictionaries.workflow_names]',
    `values = ${tomlList(WORKFLOW_NAMES)}`,
    '[dictionaries.catalogs]',
    `values = ${tomlList(CATALOGS)}`,
    '[dictionaries.step_names]',
    `values = ${tomlList(STEP_NAMES)}`,
    '',
    '[parameters]',
    '"path.id" = { dictionary = "workflow_ids", probability = 0.6 }',
    '"path.rid" = { dictionary = "run_ids", probability = 0.6 }',
    '"body.workflowId" = { dictionary = "workflow_ids", probability = 0.5 }',
    '"body.workflowName" = { dictionary = "workflow_names", probability = 0.6 }',
    '"query.workflowName" = { dictionary = "workflow_names", probability = 0.5 }',
    '"body.catalog" = { dictionary = "catalogs", probability = 0.5 }',
    '"body.taskQueue" = { dictionary = "catalogs", probability = 0.5 }',
    '"query.catalog" = { dictionary = "catalogs", probability = 0.5 }',
    '"body.stepName" = { dictionary = "step_names", probability = 0.6 }',
    '',
  ].join('\n');
}

test(`schemathesis ${SCHEMATHESIS_VERSION}: no 5xx; documented statuses, content types, headers and schemas only`, async () => {
  // Installs on first use; no Python (or no PyPI) is a failure here, never a skip (scripts/infra/schemathesis.mjs).
  const stPath = await ensureSchemathesis({ log: (line) => process.stdout.write(`[schemathesis] ${line}\n`) });
  const workDir = await mkdtemp(join(tmpdir(), 'flowgate-fuzz-'));
  let api: TestApi | undefined;
  try {
    const catalogs = FIXTURE_CATALOGS.filter(({ catalog }) => catalog !== 'idle');
    api = await startTestApi({ API_AUTH_TOKEN: TOKEN, RUN_TIMEOUT_MAX_SECONDS: '2' }, { catalogs });
    const runs = await seedRuns(api);
    const configPath = join(workDir, 'schemathesis.toml');
    await writeFile(configPath, schemathesisConfig(runs));
    const args = [
      '--config-file', configPath,
      'run', `${api.baseUrl}/openapi.json`,
      '--header', `Authorization: Bearer ${TOKEN}`,
      '--checks', CHECKS.join(','),
      '--max-examples', String(MAX_EXAMPLES),
      '--seed', String(SEED),
      '--workers', '1',
      '--request-timeout', '20',
      // Nothing written into the repo or carried between runs: the seed alone decides what is generated.
      '--generation-database', 'none',
      '--continue-on-failure',
      '--no-color',
      ...(process.env.FUZZ_REPORT_DIR ? ['--report', 'har', '--report-dir', process.env.FUZZ_REPORT_DIR] : []),
    ];
    const startedAt = Date.now();
    const result = await runSchemathesis(stPath, args, { cwd: workDir, timeoutMs: RUN_LIMIT_MS });
    const seconds = Math.round((Date.now() - startedAt) / 1000);
    // Warnings and the summary (phases, operations, test cases) go to the log even when the run passes.
    const tail = result.output.slice(Math.max(0, result.output.search(/^=+ (WARNINGS|SUMMARY) =+$/m)));
    process.stdout.write(`[schemathesis] ${api.engine} engine, ${MAX_EXAMPLES} examples per operation, seed ${SEED}: ${seconds} s\n${tail}\n`);
    if (result.timedOut || result.code !== 0) {
      const why = result.timedOut ? `did not finish within ${RUN_LIMIT_MS / 1000} s` : `exited with ${result.code ?? result.signal}`;
      // A 5xx is logged by the server with its cause chain and request id: what a finding needs to be understood.
      const serverErrors = api.logs.filter((line) => line.level === 'error').map((line) => JSON.stringify(line));
      const logs = serverErrors.length > 0 ? `\nserver error log (${serverErrors.length} lines):\n${serverErrors.slice(0, 20).join('\n')}` : '';
      // The findings first (operation, check, answer, curl), as a report's end shows only the start of a long message.
      const findings = /^=+ FAILURES =+$[\s\S]*?(?=^=+ [A-Z]+ =+$)/m.exec(result.output)?.[0] ?? '';
      throw new Error(`schemathesis ${why} on the ${api.engine} engine (seed ${SEED}):\n${findings}\nits whole output:\n${result.output}${logs}`);
    }
  } finally {
    if (api) await deleteSchedules(api);
    await api?.close();
    await rm(workDir, { recursive: true, force: true });
  }
});

test.run();
