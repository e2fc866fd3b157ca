import * as assert from 'uvu/assert';
import { uniqueId } from '../support/http.js';
import { contractSuite, expectError, expectStatus, http } from '../support/contract.js';
import { TestKeyFile, testKey, type TestKey } from '../support/keyFiles.js';
import type { TestApi } from '../support/engines.js';
import { eventually } from '../support/eventually.js';

/*
 * Schedules and API keys (docs/schedules.md, docs/security.md): reading needs `read`, every change `control`; the key
 * that created and last changed a schedule is recorded on it; a key limited to some workflows sees and touches only
 * their schedules, and creates no other.
 */
const reader = testKey('dashboards', ['read']);
const operator = testKey('ops.scheduler', ['read', 'control']);
const echoOnly = testKey('echo-team', ['read', 'control'], { workflows: ['echo'] });
const keyFile = new TestKeyFile([reader, operator, echoOnly]);
const test = contractSuite('schedules and API keys', { API_KEYS_FILE: keyFile.path });
test.after(() => keyFile.remove());

const as = (key: TestKey) => ({ headers: key.headers });
const paused = (scheduleId: string, workflowName: string, input: unknown) => ({ scheduleId, workflowName, input, spec: { every: '1h' }, paused: true });

async function removeAs(api: TestApi, key: TestKey, scheduleId: string): Promise<void> {
  const response = await http(api, 'DELETE', `/schedules/${scheduleId}`, as(key));
  assert.ok(response.status === 204 || response.status === 404, `delete ${scheduleId}: ${response.status}`);
}

test('read may list and describe; only control may create, change, pause, trigger, backfill or delete', async ({ api }) => {
  const scheduleId = uniqueId('keyed');
  const refused = await http(api, 'POST', '/schedules', { json: paused(scheduleId, 'echo', { message: 'x' }), ...as(reader) });
  expectError(refused, 403, 'ForbiddenError');
  assert.match(refused.body.message, /"control" scope/);
  expectError(await http(api, 'GET', `/schedules/${scheduleId}`, as(reader)), 404, 'ScheduleNotFoundError', { workflowId: null });

  const created = await http(api, 'POST', '/schedules', { json: paused(scheduleId, 'echo', { message: 'x' }), ...as(operator) });
  expectStatus(created, 201, 'create with control');
  try {
    assert.is(created.body.createdBy, 'ops.scheduler');
    assert.is(created.body.updatedBy, 'ops.scheduler');
    expectStatus(await http(api, 'GET', `/schedules/${scheduleId}`, as(reader)), 200, 'describe with read');
    expectStatus(await http(api, 'GET', '/schedules', as(reader)), 200, 'list with read');
    for (const [method, path, body] of [
      ['PATCH', '', { note: 'x' }],
      ['POST', '/pause', {}],
      ['POST', '/unpause', {}],
      ['POST', '/trigger', {}],
      ['POST', '/backfill', { startAt: '2026-01-01T00:00:00Z', endAt: '2026-01-01T01:00:00Z' }],
      ['DELETE', '', undefined],
    ] as const) {
      const response = await http(api, method, `/schedules/${scheduleId}${path}`, { ...(body === undefined ? {} : { json: body }), ...as(reader) });
      expectError(response, 403, 'ForbiddenError');
    }
    const stillThere = await http(api, 'GET', `/schedules/${scheduleId}`, as(reader));
    assert.is(stillThere.body.paused, true, 'nothing a refused key asked was done');
    assert.is(stillThere.body.note, '');

    const changed = await http(api, 'POST', `/schedules/${scheduleId}/unpause`, { json: { note: 'on again' }, ...as(echoOnly) });
    expectStatus(changed, 200, 'unpause by another key');
    assert.is(changed.body.createdBy, 'ops.scheduler', 'the creator stays');
    assert.is(changed.body.updatedBy, 'echo-team', 'the last change is recorded');
  } finally {
    await removeAs(api, operator, scheduleId);
  }
});

test('a key limited to some workflows sees and changes only their schedules, and creates no other', async ({ api }) => {
  const mine = uniqueId('echo-sched');
  const theirs = uniqueId('arith-sched');
  expectStatus(await http(api, 'POST', '/schedules', { json: paused(mine, 'echo', { message: 'm' }), ...as(echoOnly) }), 201, 'create own');
  expectStatus(await http(api, 'POST', '/schedules', { json: paused(theirs, 'arithmetic', { n: 1 }), ...as(operator) }), 201, 'create other');
  try {
    expectError(await http(api, 'POST', '/schedules', { json: paused(uniqueId('not-mine'), 'arithmetic', { n: 1 }), ...as(echoOnly) }), 403, 'ForbiddenError');
    expectError(await http(api, 'GET', `/schedules/${theirs}`, as(echoOnly)), 404, 'ScheduleNotFoundError');
    expectError(await http(api, 'POST', `/schedules/${theirs}/trigger`, { json: {}, ...as(echoOnly) }), 404, 'ScheduleNotFoundError');
    expectError(await http(api, 'DELETE', `/schedules/${theirs}`, as(echoOnly)), 404, 'ScheduleNotFoundError');
    expectError(await http(api, 'PATCH', `/schedules/${mine}`, { json: { workflowName: 'arithmetic', input: { n: 2 } }, ...as(echoOnly) }), 403, 'ForbiddenError');
    await eventually('own schedule in the list', async () => {
      const listed = await http(api, 'GET', '/schedules?limit=1000', as(echoOnly));
      const ids = listed.body.schedules.map((schedule: { scheduleId: string }) => schedule.scheduleId);
      assert.not.ok(ids.includes(theirs), 'the other workflow\'s schedule is not listed');
      return ids.includes(mine);
    });
    expectStatus(await http(api, 'GET', `/schedules/${theirs}`, as(operator)), 200, 'the other key still sees it');
  } finally {
    await removeAs(api, operator, mine);
    await removeAs(api, operator, theirs);
  }
});

test.run();
