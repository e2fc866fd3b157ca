import * as assert from 'uvu/assert';
import { createFlowgateClient, FlowgateApiError, type FlowgateClient, type Schedule } from '../../adapters/client/index.js';
import { contractSuite } from '../support/contract.js';
import { uniqueId } from '../support/http.js';
import { runFlowgate, type CliOutcome } from '../support/cliProcess.js';
import { eventually } from '../support/eventually.js';
import { refusal } from '../support/refusal.js';
import { TestKeyFile, testKey, type TestKey } from '../support/keyFiles.js';

/*
 * Schedules (docs/schedules.md) as their users reach them: through the typed client's `client.schedules.*` and
 * through `flowgate schedule <action>` (docs/cli.md), a child process against the suite's server on the engine
 * under test. Every schedule a test creates is deleted in `finally`: on Temporal it would outlive the test server.
 */
const operator = testKey('operator', ['read', 'control']);
const dashboard = testKey('dashboard', ['read']);
const keyFile = new TestKeyFile([operator, dashboard]);
const test = contractSuite('schedules through the client and the command', { API_KEYS_FILE: keyFile.path });
test.after(() => keyFile.remove());

const clients: FlowgateClient[] = [];
test.after(async () => {
  await Promise.all(clients.map((client) => client.close()));
});
function clientOf(baseUrl: string): FlowgateClient {
  const client = createFlowgateClient({ baseUrl, token: operator.secret });
  clients.push(client);
  return client;
}

/** Deletes the schedules, whether or not the test got as far as making them. */
async function removeAll(client: FlowgateClient, scheduleIds: readonly string[]): Promise<void> {
  for (const scheduleId of scheduleIds) {
    await client.schedules.delete(scheduleId).catch((error: unknown) => {
      if (!(error instanceof FlowgateApiError && error.status === 404)) throw error;
    });
  }
}


/** What `probe` finds, asked until it finds something (on Temporal the schedule list lags a moment behind a change). */


const flowgate = (baseUrl: string, args: string[], key: TestKey = operator): Promise<CliOutcome> => runFlowgate(baseUrl, key.secret, args);

function succeeds(outcome: CliOutcome): string {
  assert.is(outcome.code, 0, `exit 0 expected:\n${outcome.stdout}\n${outcome.stderr}`);
  assert.is(outcome.stderr, '');
  return outcome.stdout;
}

/** `--json`: one line of JSON on stdout. */
function parsed(outcome: CliOutcome): any {
  const lines = succeeds(outcome).trim().split('\n');
  assert.is(lines.length, 1, `--json prints one line:\n${outcome.stdout}`);
  return JSON.parse(lines[0]!);
}

/** Exit 3 and stderr's lines: the error's line first, then one per issue. */
function apiFailure(outcome: CliOutcome): string[] {
  assert.is(outcome.code, 3, `exit 3 expected:\n${outcome.stdout}\n${outcome.stderr}`);
  assert.not.match(outcome.stderr, /\n\s+at /, 'no stack');
  return outcome.stderr.split('\n').filter(Boolean);
}

test('client.schedules: create, get, list by workflow, update, pause with a note, unpause, trigger, delete', async ({ api }) => {
  const client = clientOf(api.baseUrl);
  const scheduleId = uniqueId('client-every');
  try {
    const created = await client.schedules.create({ scheduleId, workflowName: 'echo', input: { message: 'x' }, spec: { every: '2s' } });
    assert.is(created.scheduleId, scheduleId);
    assert.equal([created.workflowName, created.catalog, created.input, created.spec.every, created.paused], ['echo', 'main', { message: 'x' }, '2s', false]);
    assert.is(created.createdBy, 'operator');

    const got = await client.schedules.get(scheduleId);
    assert.equal([got.scheduleId, got.spec.every, got.policy.overlap], [scheduleId, '2s', 'skip']);
    assert.ok(got.nextFireTimes.length > 0, 'an active schedule has next fire times');

    const listed = await eventually('the schedule in the list of echo schedules', async () => {
      const list = await client.schedules.list({ workflowName: 'echo', limit: 1000 });
      return list.schedules.find((schedule) => schedule.scheduleId === scheduleId);
    });
    assert.is(listed.workflowName, 'echo');
    const others = await client.schedules.list({ workflowName: 'arithmetic', limit: 1000 });
    assert.not.ok(others.schedules.some((schedule) => schedule.scheduleId === scheduleId), 'the list is filtered by workflow');

    const updated = await client.schedules.update(scheduleId, { input: { message: 'y' } });
    assert.equal(updated.input, { message: 'y' });
    assert.is(updated.spec.every, '2s', 'what the update does not name stays');
    assert.is(updated.updatedBy, 'operator');

    const paused = await client.schedules.pause(scheduleId, { note: 'maintenance window' });
    assert.equal([paused.paused, paused.note, paused.nextFireTimes], [true, 'maintenance window', []]);
    const unpaused = await client.schedules.unpause(scheduleId, { note: 'back' });
    assert.equal([unpaused.paused, unpaused.note], [false, 'back']);

    assert.equal(await client.schedules.trigger(scheduleId, { overlap: 'allow_all' }), { scheduleId, fires: 1 });
    const fired = await eventually('a run the schedule started', async () => {
      const schedule = await client.schedules.get(scheduleId);
      return schedule.recentActions.length > 0 ? schedule : undefined;
    });
    assert.ok(fired.recentActions.every((action) => action.workflowId.startsWith(`${scheduleId}-`)), 'its runs are named by the schedule');

    await client.schedules.delete(scheduleId);
    const gone = await refusal(client.schedules.get(scheduleId));
    assert.equal([gone.status, gone.error], [404, 'ScheduleNotFoundError']);
  } finally {
    await removeAll(client, [scheduleId]);
  }
});

test('client.schedules.backfill: a paused */10 schedule fires once per fire time of 00:00..00:25, under allow_all', async ({ api }) => {
  const client = clientOf(api.baseUrl);
  const scheduleId = uniqueId('client-backfill');
  try {
    await client.schedules.create({ scheduleId, workflowName: 'echo', input: { message: 'b' }, spec: { cron: '*/10 * * * *' }, paused: true });
    const fired = await client.schedules.backfill(scheduleId, { startAt: '2026-01-01T00:00:00Z', endAt: '2026-01-01T00:25:00Z', overlap: 'allow_all' });
    assert.equal(fired, { scheduleId, fires: 3 });
    const runs = await eventually('the three backfilled runs', async () => {
      const list = await client.listRuns({ scheduleId, limit: 100 });
      return list.runs.length >= 3 ? list.runs : undefined;
    });
    assert.equal(runs.map((run) => run.workflowId).sort(), ['00:00', '00:10', '00:20'].map((time) => `${scheduleId}-2026-01-01T${time}:00Z`));
  } finally {
    await removeAll(client, [scheduleId]);
  }
});

test('flowgate schedule: create with every option, describe (human and --json), list, pause, trigger, delete', async ({ api }) => {
  const client = clientOf(api.baseUrl);
  const scheduleId = uniqueId('cli-cron');
  const intervalId = uniqueId('cli-every');
  try {
    const [createdCron, createdInterval] = await Promise.all([
      flowgate(api.baseUrl, [
        'schedule', 'create', scheduleId, '--workflow', 'echo', '--input', '{"message":"cli"}',
        '--cron', '0 3 * * *', '--cron', '30 15 * * 1-5', '--timezone', 'Europe/Berlin',
        '--start-at', '2026-01-01T00:00:00Z', '--end-at', '2030-01-01T00:00:00Z', '--jitter', '30s',
        '--overlap', 'buffer_one', '--catchup-window', '1h', '--pause-on-failure', '--note', 'made by the cli',
      ]),
      flowgate(api.baseUrl, ['schedule', 'create', intervalId, '--workflow', 'echo', '--input', '{"message":"i"}', '--every', '1h', '--offset', '15m', '--paused', '--json']),
    ]);
    assert.match(succeeds(createdCron), new RegExp(`^created: ${scheduleId}\\nschedule: +${scheduleId}\\n`));
    const interval = parsed(createdInterval);
    assert.equal([interval.spec.every, interval.spec.offset, interval.paused], ['1h', '15m', true]);

    const [describedJson, describedHuman] = await Promise.all([
      flowgate(api.baseUrl, ['schedule', 'describe', scheduleId, '--json']),
      flowgate(api.baseUrl, ['schedule', 'describe', scheduleId]),
    ]);
    const described = parsed(describedJson);
    assert.equal(described.spec, {
      cron: ['0 3 * * *', '30 15 * * 1-5'],
      timezone: 'Europe/Berlin',
      startAt: '2026-01-01T00:00:00.000Z',
      endAt: '2030-01-01T00:00:00.000Z',
      jitterSeconds: 30,
    });
    assert.equal(described.policy, { overlap: 'buffer_one', catchupWindowSeconds: 3600, pauseOnFailure: true });
    assert.equal([described.input, described.paused, described.note, described.createdBy], [{ message: 'cli' }, false, 'made by the cli', 'operator']);
    const human = succeeds(describedHuman);
    for (const line of [
      `schedule: +${scheduleId}`, 'workflow: +echo', 'catalog: +main', 'input: +\\{"message":"cli"\\}', 'cron: +0 3 \\* \\* \\*', 'cron: +30 15 \\* \\* 1-5',
      'timezone: +Europe/Berlin', 'start: +2026-01-01T00:00:00.000Z', 'end: +2030-01-01T00:00:00.000Z', 'jitter: +30s', 'overlap: +buffer_one',
      'catch-up window: +1h', 'pause on failure: +yes', 'state: +active', 'note: +made by the cli', 'actions: +0 started, 0 missed', 'created: +\\S+ by operator',
    ]) {
      assert.match(human, new RegExp(`^${line}$`, 'm'));
    }
    assert.match(human, /^next fire times:\n {2}\d{4}-\d\d-\d\dT/m);

    await eventually('both schedules in the list', async () => {
      const list = await client.schedules.list({ workflowName: 'echo', limit: 1000 });
      return list.schedules.filter((schedule) => schedule.scheduleId === scheduleId || schedule.scheduleId === intervalId).length === 2 ? true : undefined;
    });
    const [listedHuman, listedJson] = await Promise.all([
      flowgate(api.baseUrl, ['schedule', 'list', '--workflow', 'echo', '--limit', '1000']),
      flowgate(api.baseUrl, ['schedule', 'list', '--workflow', 'echo', '--limit', '1000', '--json']),
    ]);
    const table = succeeds(listedHuman);
    assert.match(table, /^SCHEDULE +WORKFLOW +STATE +NEXT FIRE +ACTIONS +WHEN\n/);
    assert.match(table, new RegExp(`^${scheduleId} +echo +active +\\S+ +0 +cron 0 3 \\* \\* \\* \\| 30 15 \\* \\* 1-5 \\(Europe/Berlin\\)$`, 'm'));
    assert.match(table, new RegExp(`^${intervalId} +echo +paused +- +0 +every 1h offset 15m$`, 'm'));
    assert.ok(parsed(listedJson).schedules.some((schedule: Schedule) => schedule.scheduleId === intervalId));

    const [pausedCron, unpausedInterval, triggered] = await Promise.all([
      flowgate(api.baseUrl, ['schedule', 'pause', scheduleId, '--note', 'on hold']),
      flowgate(api.baseUrl, ['schedule', 'unpause', intervalId]),
      flowgate(api.baseUrl, ['schedule', 'trigger', scheduleId, '--overlap', 'allow_all']),
    ]);
    assert.is(succeeds(pausedCron), `paused: ${scheduleId} (note: on hold)\n`);
    assert.equal((await client.schedules.get(scheduleId)).paused, true);
    assert.match(succeeds(unpausedInterval), new RegExp(`^unpaused: ${intervalId}; next fire \\d{4}-\\d\\d-\\d\\dT\\d\\d:15:00`));
    assert.is(succeeds(triggered), `triggered: ${scheduleId} (1 fire)\n`);
    const run = await eventually('the triggered run', async () => (await client.schedules.get(scheduleId)).recentActions[0]);
    assert.match(run.workflowId, new RegExp(`^${scheduleId}-\\d{4}-`));
    const afterTrigger = succeeds(await flowgate(api.baseUrl, ['schedule', 'describe', scheduleId]));
    assert.match(afterTrigger, new RegExp(`^recent actions \\(newest last\\):\\nSCHEDULED +STARTED +WORKFLOW ID +RUN ID\\n\\S+ +\\S+ +${run.workflowId} +${run.runId}$`, 'm'));
    assert.match(afterTrigger, /^state: +paused\nnote: +on hold$/m);
    const ofSchedule = await eventually('the triggered run in `flowgate runs --schedule`', async () => {
      const listed = JSON.parse(succeeds(await flowgate(api.baseUrl, ['runs', '--schedule', scheduleId, '--json'])));
      return listed.runs.length > 0 ? listed : undefined;
    });
    assert.equal(ofSchedule.runs.map((listed: { runId: string }) => listed.runId), [run.runId]);

    const [deleted, deletedJson] = await Promise.all([
      flowgate(api.baseUrl, ['schedule', 'delete', scheduleId]),
      flowgate(api.baseUrl, ['schedule', 'delete', intervalId, '--json']),
    ]);
    assert.is(succeeds(deleted), `deleted: ${scheduleId}\n`);
    assert.equal(parsed(deletedJson), { scheduleId: intervalId, deleted: true });
    const gone = apiFailure(await flowgate(api.baseUrl, ['schedule', 'describe', scheduleId]));
    assert.is(gone.length, 1);
    assert.match(gone[0]!, new RegExp(`^flowgate schedule describe: ScheduleNotFoundError: .*${scheduleId}.* \\(HTTP 404, request id \\S+\\)$`));
  } finally {
    await removeAll(client, [scheduleId, intervalId]);
  }
});

test('flowgate schedule: what the API refuses is exit 3 with its error line, each issue naming its field, and the key hint on 403', async ({ api }) => {
  const client = clientOf(api.baseUrl);
  const scheduleId = uniqueId('cli-refused');
  const neverMade = uniqueId('cli-never');
  const unknown = uniqueId('cli-unknown');
  const makeNew = ['schedule', 'create', neverMade, '--workflow', 'echo'];
  const unknownActions = ['describe', 'pause', 'unpause', 'trigger', 'delete'];
  try {
    const [badCron, badZone, badInput, jsonError, noWorkflow, ...missing] = await Promise.all([
      flowgate(api.baseUrl, [...makeNew, '--input', '{"message":"x"}', '--cron', '61 * * * *']),
      flowgate(api.baseUrl, [...makeNew, '--input', '{"message":"x"}', '--every', '1h', '--timezone', 'Mars/Olympus']),
      flowgate(api.baseUrl, [...makeNew, '--input', '{"message":7}', '--every', '1h']),
      flowgate(api.baseUrl, [...makeNew, '--input', '{"message":"x"}', '--cron', 'not a cron', '--json']),
      flowgate(api.baseUrl, ['schedule', 'create', neverMade, '--workflow', 'no_such_workflow', '--every', '1h']),
      ...unknownActions.map((action) => flowgate(api.baseUrl, ['schedule', action, unknown])),
    ]);
    const cronLines = apiFailure(badCron!);
    assert.match(cronLines[0]!, /^flowgate schedule create: ValidationError: .* \(HTTP 400, request id \S+\)$/);
    assert.ok(cronLines.length >= 2, cronLines.join('\n'));
    assert.ok(cronLines.slice(1).every((line) => line.startsWith('flowgate schedule create:   spec.cron')), cronLines.join('\n'));
    assert.match(apiFailure(badZone!)[1]!, /^flowgate schedule create: {3}spec\.timezone: timezone "Mars\/Olympus" is not an IANA time zone/);
    const inputLines = apiFailure(badInput!);
    assert.match(inputLines[0]!, /^flowgate schedule create: ValidationError: /);
    assert.match(inputLines[1]!, /^flowgate schedule create: {3}input\.message: /);
    assert.is(jsonError!.code, 3);
    const body = JSON.parse(jsonError!.stdout) as { error: string; issues: { path: (string | number)[] }[] };
    assert.is(body.error, 'ValidationError', '--json prints the error body');
    assert.equal(body.issues[0]!.path.slice(0, 2), ['spec', 'cron']);
    assert.match(apiFailure(noWorkflow!)[0]!, /^flowgate schedule create: WorkflowNotFoundError: .* \(HTTP 404, request id \S+\)$/);
    unknownActions.forEach((action, index) => {
      const lines = apiFailure(missing[index]!);
      assert.is(lines.length, 1, lines.join('\n'));
      assert.match(lines[0]!, new RegExp(`^flowgate schedule ${action}: ScheduleNotFoundError: .*${unknown}.* \\(HTTP 404, request id \\S+\\)$`));
    });
    assert.equal((await refusal(client.schedules.get(neverMade))).status, 404, 'nothing was created');

    const create = ['schedule', 'create', scheduleId, '--workflow', 'echo', '--input', '{"message":"x"}', '--every', '1h', '--paused'];
    succeeds(await flowgate(api.baseUrl, create));
    const [twice, readOnly, forbidden] = await Promise.all([
      flowgate(api.baseUrl, create),
      flowgate(api.baseUrl, ['schedule', 'describe', scheduleId, '--json'], dashboard),
      flowgate(api.baseUrl, ['schedule', 'pause', scheduleId], dashboard),
    ]);
    const twiceLines = apiFailure(twice);
    assert.is(twiceLines.length, 1);
    assert.match(twiceLines[0]!, new RegExp(`^flowgate schedule create: ScheduleAlreadyExistsError: .*${scheduleId}.* \\(HTTP 409, request id \\S+\\)$`));
    assert.is(parsed(readOnly).scheduleId, scheduleId, 'a read key reads');
    assert.match(apiFailure(forbidden)[0]!, /^flowgate schedule pause: ForbiddenError: API key "dashboard" lacks the "control" scope.*\(HTTP 403[^)]*\); `flowgate whoami` shows what this key may do$/);
  } finally {
    await removeAll(client, [scheduleId, neverMade]);
  }
});

test.run();
