import * as assert from 'uvu/assert';
import { uniqueId } from '../support/http.js';
import { contractSuite, expectError, expectIssueAt, expectStatus, http, wf } from '../support/contract.js';
import { eventually } from '../support/eventually.js';
import type { TestApi } from '../support/engines.js';

/*
 * Schedules (docs/schedules.md) on both engines: an every-2s schedule starts runs named `<id>-<fire time>` that carry
 * their scheduleId; pause stops the fires, unpause resumes them, trigger fires at once, `skip` never starts a run beside
 * one still open; on the durable embedded engine a restart loses no schedule and fires nothing twice.
 */
const test = contractSuite('schedules');

const SCHEDULED_ID = /^(.+)-(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ)$/;

async function create(api: TestApi, body: Record<string, unknown>): Promise<any> {
  const response = await http(api, 'POST', '/schedules', { json: body });
  expectStatus(response, 201, 'create schedule');
  return response.body;
}

async function remove(api: TestApi, scheduleId: string): Promise<void> {
  const response = await http(api, 'DELETE', `/schedules/${scheduleId}`);
  assert.ok(response.status === 204 || response.status === 404, `delete ${scheduleId}: ${response.status}`);
}

/** The runs the schedule started, as the runs list filters them (Temporal's visibility may lag a moment). */
async function runsOf(api: TestApi, scheduleId: string): Promise<any[]> {
  const response = await http(api, 'GET', `/workflow/runs?scheduleId=${scheduleId}&limit=100`);
  expectStatus(response, 200, 'runs of schedule');
  return response.body.runs;
}


const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function withSchedule(api: TestApi, body: Record<string, unknown>, use: (schedule: any) => Promise<void>): Promise<void> {
  const schedule = await create(api, body);
  try {
    await use(schedule);
  } finally {
    await remove(api, schedule.scheduleId);
  }
}

test('an every-2s schedule starts runs named <scheduleId>-<fire time> that carry its scheduleId', async ({ api }) => {
  const scheduleId = uniqueId('every2s');
  await withSchedule(api, { scheduleId, workflowName: 'echo', input: { message: 'tick' }, spec: { every: '2s' } }, async (created) => {
    assert.is(created.scheduleId, scheduleId);
    assert.equal(created.spec, { every: '2s', timezone: 'UTC', startAt: null, endAt: null, jitterSeconds: 0 });
    assert.equal(created.policy, { overlap: 'skip', catchupWindowSeconds: 365 * 86_400, pauseOnFailure: false });
    assert.is(created.paused, false);
    assert.is(created.nextFireTimes.length, 10);
    const gaps = created.nextFireTimes.slice(1).map((time: string, index: number) => Date.parse(time) - Date.parse(created.nextFireTimes[index]));
    assert.ok(gaps.every((gap: number) => gap === 2000), `fires 2 s apart: ${created.nextFireTimes.join(', ')}`);
    assert.ok(created.nextFireTimes.every((time: string) => Date.parse(time) % 2000 === 0), 'counted from the epoch');

    const runs = await eventually('two runs of the schedule', async () => {
      const found = await runsOf(api, scheduleId);
      return found.length >= 2 ? found : undefined;
    });
    for (const run of runs) {
      const [, prefix, time] = SCHEDULED_ID.exec(run.workflowId) ?? [];
      assert.is(prefix, scheduleId, `workflow id ${run.workflowId}`);
      assert.is(Date.parse(time!) % 2000, 0, `fire time in ${run.workflowId}`);
      assert.is(run.scheduleId, scheduleId);
      assert.is(run.workflowName, 'echo');
    }
    const status = await http(api, 'GET', `${wf(runs[0].workflowId, runs[0].runId)}/status`);
    assert.is(status.body.scheduleId, scheduleId);
    const described = await eventually('recent actions', async () => {
      const response = await http(api, 'GET', `/schedules/${scheduleId}`);
      expectStatus(response, 200, 'describe');
      return response.body.recentActions.length >= 2 ? response.body : undefined;
    });
    assert.ok(described.actionCount >= 2);
    assert.match(described.recentActions[0].workflowId, SCHEDULED_ID);
    if (api.engine === 'embedded') {
      // The embedded engine fires its schedules in this process: /metrics counts each fire by outcome.
      const metrics = await http(api, 'GET', '/metrics');
      const started = new RegExp(`^flowgate_schedule_actions_total\\{schedule="${scheduleId}",outcome="started"\\} (\\d+)$`, 'm').exec(metrics.text);
      assert.ok(started && Number(started[1]) >= 2, `flowgate_schedule_actions_total counts the fires:\n${metrics.text.split('\n').filter((line) => line.includes('schedule_actions')).join('\n')}`);
    }
  });
  if (api.engine === 'embedded') {
    // Deleted, its series go: ids are the callers', and series of deleted schedules would pile up for the process's life.
    const metrics = await http(api, 'GET', '/metrics');
    assert.not.ok(metrics.text.includes(`schedule="${scheduleId}"`), 'no series of the deleted schedule');
  }
});

test('pause stops the fires, unpause resumes them, trigger fires at once (paused or not)', async ({ api }) => {
  const scheduleId = uniqueId('pausing');
  await withSchedule(api, { scheduleId, workflowName: 'echo', input: { message: 'p' }, spec: { every: '2s' } }, async () => {
    await eventually('a first run', async () => ((await runsOf(api, scheduleId)).length >= 1 ? true : undefined));
    const paused = await http(api, 'POST', `/schedules/${scheduleId}/pause`, { json: { note: 'maintenance window' } });
    expectStatus(paused, 200, 'pause');
    assert.is(paused.body.paused, true);
    assert.is(paused.body.note, 'maintenance window');
    assert.equal(paused.body.nextFireTimes, []);
    // A fire already handed over when the pause came may still show; after that, nothing new.
    await sleep(2500);
    const before = (await runsOf(api, scheduleId)).length;
    await sleep(4500);
    assert.is((await runsOf(api, scheduleId)).length, before, 'no fire while paused');

    const triggered = await http(api, 'POST', `/schedules/${scheduleId}/trigger`, { json: {} });
    expectStatus(triggered, 202, 'trigger');
    assert.equal(triggered.body, { scheduleId, fires: 1 });
    await eventually('the triggered run', async () => ((await runsOf(api, scheduleId)).length > before ? true : undefined), 10_000);

    const unpaused = await http(api, 'POST', `/schedules/${scheduleId}/unpause`);
    expectStatus(unpaused, 200, 'unpause');
    assert.is(unpaused.body.paused, false);
    assert.is(unpaused.body.nextFireTimes.length, 10);
    const afterTrigger = (await runsOf(api, scheduleId)).length;
    await eventually('fires again after unpause', async () => ((await runsOf(api, scheduleId)).length > afterTrigger ? true : undefined), 10_000);
  });
});

test('overlap skip never starts a run beside one still open; the skipped fires are counted', async ({ api }) => {
  const scheduleId = uniqueId('skipper');
  await withSchedule(api, { scheduleId, workflowName: 'awaits_feedback', input: {}, spec: { every: '2s' }, policy: { overlap: 'skip' } }, async () => {
    const [first] = await eventually('a first run', async () => {
      const runs = await runsOf(api, scheduleId);
      return runs.length >= 1 ? runs : undefined;
    });
    const described = await eventually('skipped fires', async () => {
      const response = await http(api, 'GET', `/schedules/${scheduleId}`);
      return response.body.missedCount >= 2 ? response.body : undefined;
    });
    assert.is((await runsOf(api, scheduleId)).length, 1, 'one run while it is open');
    assert.equal(described.runningRuns.map((run: any) => run.workflowId), [first.workflowId]);
    // A trigger without its own overlap follows the schedule's: skipped too.
    expectStatus(await http(api, 'POST', `/schedules/${scheduleId}/trigger`, { json: {} }), 202, 'trigger');
    await sleep(3000);
    assert.equal((await runsOf(api, scheduleId)).map((run: any) => run.workflowId), [first.workflowId], 'a trigger under skip starts no run beside the open one');
    const feedback = await http(api, 'POST', '/workflow/feedback', { json: { workflowId: first.workflowId, payload: { ok: true } } });
    expectStatus(feedback, 200, 'feedback');
    await eventually('a second run once the first closed', async () => ((await runsOf(api, scheduleId)).length >= 2 ? true : undefined));
  });
});

test('a backfill fires once for every time of a past range', async ({ api }) => {
  const scheduleId = uniqueId('backfill');
  await withSchedule(api, { scheduleId, workflowName: 'echo', input: { message: 'b' }, spec: { cron: '*/10 * * * *' }, paused: true }, async () => {
    const response = await http(api, 'POST', `/schedules/${scheduleId}/backfill`, {
      json: { startAt: '2026-01-01T00:00:00Z', endAt: '2026-01-01T00:25:00Z', overlap: 'allow_all' },
    });
    expectStatus(response, 202, 'backfill');
    assert.equal(response.body, { scheduleId, fires: 3 });
    const runs = await eventually('three backfilled runs', async () => {
      const found = await runsOf(api, scheduleId);
      return found.length >= 3 ? found : undefined;
    });
    assert.equal(runs.map((run: any) => run.workflowId).sort(), ['00:00', '00:10', '00:20'].map((time) => `${scheduleId}-2026-01-01T${time}:00Z`));
  });
});

test('a schedule page token is bound to its filter, shows no schedule id, and a forged one is refused', async ({ api }) => {
  const ids = [uniqueId('paged-a'), uniqueId('paged-b')];
  for (const scheduleId of ids) await create(api, { scheduleId, workflowName: 'echo', input: { message: 'x' }, spec: { every: '1h' }, paused: true });
  try {
    const token: string = await eventually('a first page with a next page token', async () => {
      const response = await http(api, 'GET', '/schedules?workflowName=echo&limit=1');
      expectStatus(response, 200, 'first page');
      return response.body.nextPageToken ?? undefined;
    });
    const readable = Buffer.from(token, 'base64url').toString('latin1');
    for (const scheduleId of ids) assert.not.ok(readable.includes(scheduleId), `the token names ${scheduleId}`);
    expectStatus(await http(api, 'GET', `/schedules?workflowName=echo&limit=1&pageToken=${token}`), 200, 'the next page');
    for (const bad of [`/schedules?workflowName=arithmetic&limit=1&pageToken=${token}`, '/schedules?pageToken=s1.', '/schedules?pageToken=s1.enp6', '/schedules?pageToken=garbage']) {
      const refused = await http(api, 'GET', bad);
      expectError(refused, 400, 'ValidationError');
      assert.is(refused.body.message, 'pageToken is invalid or stale', bad);
    }
  } finally {
    for (const scheduleId of ids) await remove(api, scheduleId);
  }
});

test('list, filter by workflow, change, and delete', async ({ api }) => {
  const scheduleId = uniqueId('listed');
  const created = await create(api, { scheduleId, workflowName: 'echo', input: { message: 'x' }, spec: { cron: ['0 3 * * *'], timezone: 'Europe/Berlin' }, paused: true, note: 'later' });
  try {
    assert.equal(created.spec.cron, ['0 3 * * *']);
    const listed = await eventually('the schedule in the list', async () => {
      const response = await http(api, 'GET', '/schedules?workflowName=echo&limit=1000');
      expectStatus(response, 200, 'list');
      return response.body.schedules.find((schedule: any) => schedule.scheduleId === scheduleId);
    });
    assert.is(listed.note, 'later');
    const other = await http(api, 'GET', '/schedules?workflowName=arithmetic&limit=1000');
    assert.not.ok(other.body.schedules.some((schedule: any) => schedule.scheduleId === scheduleId), 'filtered by workflow');

    const changed = await http(api, 'PATCH', `/schedules/${scheduleId}`, { json: { input: { message: 'y' }, policy: { overlap: 'buffer_one' } } });
    expectStatus(changed, 200, 'update');
    assert.equal(changed.body.input, { message: 'y' });
    assert.is(changed.body.policy.overlap, 'buffer_one');
    assert.equal(changed.body.spec.cron, ['0 3 * * *'], 'the spec stays');
    assert.is(changed.body.spec.timezone, 'Europe/Berlin');
  } finally {
    await remove(api, scheduleId);
  }
  expectError(await http(api, 'GET', `/schedules/${scheduleId}`), 404, 'ScheduleNotFoundError');
});

test('bad schedules are refused by name, and nothing is created', async ({ api }) => {
  const scheduleId = uniqueId('refused');
  const base = { scheduleId, workflowName: 'echo', input: { message: 'x' } };
  const cases: [Record<string, unknown>, number, string, string | number][] = [
    [{ ...base, spec: { cron: '61 * * * *' } }, 400, 'ValidationError', 'cron'],
    [{ ...base, spec: { cron: '0 12 L * *' } }, 400, 'ValidationError', 'cron'],
    [{ ...base, spec: { cron: '* * * *' } }, 400, 'ValidationError', 'cron'],
    [{ ...base, spec: { cron: '0 * * * *', every: '1h' } }, 400, 'ValidationError', 'spec'],
    [{ ...base, spec: {} }, 400, 'ValidationError', 'spec'],
    [{ ...base, spec: { every: 'often' } }, 400, 'ValidationError', 'every'],
    [{ ...base, spec: { every: '1m', offset: '2m' } }, 400, 'ValidationError', 'offset'],
    [{ ...base, spec: { every: '40007865948d867999005m' } }, 400, 'ValidationError', 'every'],
    [{ ...base, spec: { every: '3651d' } }, 400, 'ValidationError', 'every'],
    [{ ...base, spec: { every: '1m', timezone: 'Mars/Olympus' } }, 400, 'ValidationError', 'timezone'],
    [{ ...base, spec: { every: '1m', startAt: '2030-01-02T00:00:00Z', endAt: '2030-01-01T00:00:00Z' } }, 400, 'ValidationError', 'endAt'],
    [{ ...base, spec: { every: '1m' }, policy: { overlap: 'sometimes' } }, 400, 'ValidationError', 'overlap'],
    [{ ...base, spec: { every: '1m' }, policy: { catchupWindowSeconds: 5 } }, 400, 'ValidationError', 'catchupWindowSeconds'],
    [{ ...base, scheduleId: 'has space', spec: { every: '1m' } }, 400, 'ValidationError', 'scheduleId'],
    [{ ...base, input: { message: 42 }, spec: { every: '1m' } }, 400, 'ValidationError', 'input'],
    [{ ...base, workflowName: 'no_such_workflow', spec: { every: '1m' } }, 404, 'WorkflowNotFoundError', 'workflowName'],
  ];
  for (const [body, status, error, field] of cases) {
    const response = await http(api, 'POST', '/schedules', { json: body });
    expectError(response, status, error);
    if (status === 400) expectIssueAt(response, field);
    if (body.scheduleId === scheduleId) expectError(await http(api, 'GET', `/schedules/${scheduleId}`), 404, 'ScheduleNotFoundError');
  }
  await withSchedule(api, { ...base, spec: { every: '1h' }, paused: true }, async () => {
    expectError(await http(api, 'POST', '/schedules', { json: { ...base, spec: { every: '2h' } } }), 409, 'ScheduleAlreadyExistsError');
    const kept = await http(api, 'GET', `/schedules/${scheduleId}`);
    assert.is(kept.body.spec.every, '1h', 'the first one is untouched');
    const future = await http(api, 'POST', `/schedules/${scheduleId}/backfill`, { json: { startAt: '2026-01-01T00:00:00Z', endAt: '2999-01-01T00:00:00Z' } });
    expectError(future, 400, 'ValidationError');
    expectIssueAt(future, 'endAt');
    const tooLong = await http(api, 'POST', `/schedules/${scheduleId}/backfill`, { json: { startAt: '2025-01-01T00:00:00Z', endAt: '2026-01-01T00:00:00Z' } });
    expectError(tooLong, 400, 'ValidationError');
    expectIssueAt(tooLong, 'startAt');
    assert.is((await http(api, 'GET', `/schedules/${scheduleId}`)).body.actionCount, 0, 'a refused backfill fires nothing');
    const badPatch = await http(api, 'PATCH', `/schedules/${scheduleId}`, { json: { input: { message: 7 } } });
    expectError(badPatch, 400, 'ValidationError');
    assert.equal((await http(api, 'GET', `/schedules/${scheduleId}`)).body.input, { message: 'x' }, 'a refused change changes nothing');
  });
  const missing = uniqueId('missing');
  for (const [method, path] of [['GET', ''], ['PATCH', ''], ['DELETE', ''], ['POST', '/pause'], ['POST', '/unpause'], ['POST', '/trigger']] as const) {
    expectError(await http(api, method, `/schedules/${missing}${path}`, method === 'PATCH' ? { json: { note: 'x' } } : {}), 404, 'ScheduleNotFoundError');
  }
});

test('Temporal: a schedule another program made in the namespace is not listed, shown, changed or deleted', async ({ api }) => {
  if (api.engine !== 'temporal') return;
  const foreignId = uniqueId('foreign');
  const { Connection, Client } = await import('@temporalio/client');
  const connection = await Connection.connect({ address: process.env.TEMPORAL_ADDRESS! });
  const schedules = new Client({ connection, namespace: process.env.TEMPORAL_NAMESPACE ?? 'default' }).schedule;
  try {
    await schedules.create({
      scheduleId: foreignId,
      spec: { intervals: [{ every: '1h' }] },
      action: { type: 'startWorkflow', workflowType: 'echo', taskQueue: 'not-flowgate', args: [{ message: 'theirs' }] },
      state: { paused: true, note: 'made by another program' },
    });
    const ours = uniqueId('ours');
    await withSchedule(api, { scheduleId: ours, workflowName: 'echo', input: { message: 'o' }, spec: { every: '1h' }, paused: true }, async () => {
      // Temporal lists from its visibility store, which takes both in a moment.
      const listed = await eventually('both schedules in Temporal\'s list', async () => {
        const response = await http(api, 'GET', '/schedules?limit=1000');
        expectStatus(response, 200, 'list with a foreign schedule in the namespace');
        const ids = response.body.schedules.map((schedule: any) => schedule.scheduleId);
        const all = [];
        for await (const entry of schedules.list()) all.push(entry.scheduleId);
        return ids.includes(ours) && all.includes(foreignId) ? ids : undefined;
      });
      assert.not.ok(listed.includes(foreignId), 'the foreign schedule is not listed');
    });
    for (const [method, path] of [['GET', ''], ['PATCH', ''], ['DELETE', ''], ['POST', '/pause'], ['POST', '/unpause'], ['POST', '/trigger']] as const) {
      expectError(await http(api, method, `/schedules/${foreignId}${path}`, method === 'PATCH' ? { json: { note: 'x' } } : {}), 404, 'ScheduleNotFoundError');
    }
    const untouched = await schedules.getHandle(foreignId).describe();
    assert.is(untouched.state.paused, true);
    assert.is(untouched.state.note, 'made by another program');
  } finally {
    await schedules.getHandle(foreignId).delete().catch(() => undefined);
    await connection.close();
  }
});

test('the durable embedded engine: a restart keeps every schedule and fires nothing twice', async ({ api }) => {
  if (api.engine !== 'embedded') return;
  const scheduleId = uniqueId('restart');
  await create(api, { scheduleId, workflowName: 'echo', input: { message: 'r' }, spec: { every: '2s' }, policy: { catchupWindowSeconds: 60 } });
  try {
    await eventually('a first run', async () => ((await runsOf(api, scheduleId)).length >= 1 ? true : undefined));
    await api.restart();
    const kept = await http(api, 'GET', `/schedules/${scheduleId}`);
    expectStatus(kept, 200, 'the schedule after the restart');
    const before = kept.body.actionCount;
    await eventually('fires after the restart', async () => ((await http(api, 'GET', `/schedules/${scheduleId}`)).body.actionCount >= before + 2 ? true : undefined));
    const runs = await runsOf(api, scheduleId);
    const ids = runs.map((run: any) => run.workflowId);
    assert.is(new Set(ids).size, ids.length, `no fire time started twice: ${ids.join(', ')}`);
    const described = (await http(api, 'GET', `/schedules/${scheduleId}`)).body;
    assert.is(runs.length, described.actionCount, 'every action is one run');
  } finally {
    await remove(api, scheduleId);
  }
});

test.run();
