import * as assert from 'uvu/assert';
import { createFlowgateClient, FlowgateApiError, type FlowgateClient } from '../../adapters/client/index.js';
import { contractSuite, expectError, expectStatus, http } from '../support/contract.js';
import { uniqueId } from '../support/http.js';
import { runFlowgate, type CliOutcome } from '../support/cliProcess.js';
import { refusal } from '../support/refusal.js';
import { TestKeyFile, testKey, type TestKey } from '../support/keyFiles.js';
import { eventually } from '../support/eventually.js';

/*
 * The three keys of docs/security.md through the client and the `flowgate` command, as their holders use them: a
 * read-only dashboard key, a CI key that may only start `echo` in `main`, an operator key with control. Each does
 * exactly what its scopes say; GET /auth/key (client.describeKey(), flowgate whoami) tells each what that is; a key
 * rotated in the file works without a restart.
 */
const TOKEN = 'keys-cli-admin-t0ken';
const dashboard = testKey('dashboard', ['read']);
const ci = testKey('ci', ['start', 'read'], { catalogs: ['main'], workflows: ['echo'] });
const operator = testKey('operator', ['read', 'control']);
const keyFile = new TestKeyFile([dashboard, ci, operator]);
const test = contractSuite('API keys through the client and the command', { API_AUTH_TOKEN: TOKEN, API_KEYS_FILE: keyFile.path });
test.after(() => keyFile.remove());

const clients: FlowgateClient[] = [];
test.after(async () => {
  await Promise.all(clients.map((client) => client.close()));
});
function clientOf(baseUrl: string, key: TestKey | string): FlowgateClient {
  const client = createFlowgateClient({ baseUrl, token: typeof key === 'string' ? key : key.secret });
  clients.push(client);
  return client;
}




const flowgate = (baseUrl: string, key: TestKey, args: string[]): Promise<CliOutcome> => runFlowgate(baseUrl, key.secret, args);

test('GET /auth/key tells each key what it may do, never its secret; any valid key may ask; no key is 401', async ({ api }) => {
  const described = await http(api, 'GET', '/auth/key', { headers: ci.headers });
  expectStatus(described, 200);
  assert.equal(described.body, {
    authentication: 'on',
    key: { id: 'ci', scopes: ['start', 'read'], catalogs: ['main'], workflows: ['echo'], expiresAt: null },
    can: { read: true, start: true, control: false, admin: false },
  });
  assert.not.match(described.text, ci.secret);
  assert.not.match(described.text, ci.entry.sha256);
  const token = await http(api, 'GET', '/auth/key', { headers: { authorization: `Bearer ${TOKEN}` } });
  assert.equal(token.body.key.id, 'token');
  assert.equal(token.body.can, { read: true, start: true, control: true, admin: true });
  // A key holding no scope GETs need still learns what it is (a start-only key, say): the file gets one for a moment.
  const startOnly = testKey('start-only', ['start']);
  keyFile.write([dashboard, ci, operator, startOnly]);
  const own = await eventually('the start-only key to be read from the file', async () => {
    const answer = await http(api, 'GET', '/auth/key', { headers: startOnly.headers });
    return answer.status === 401 ? undefined : answer;
  }, { intervalMs: 50 });
  expectStatus(own, 200);
  assert.equal(own.body.can, { read: false, start: true, control: false, admin: false });
  expectError(await http(api, 'GET', '/workflow/runs', { headers: startOnly.headers }), 403, 'ForbiddenError', { workflowId: null });
  keyFile.write([dashboard, ci, operator]);
  expectError(await http(api, 'GET', '/auth/key'), 401, 'UnauthorizedError', { workflowId: null });
});

test('the client: the dashboard reads, the CI key starts only echo in main, the operator controls; each refusal names its scope', async ({ api }) => {
  const admin = clientOf(api.baseUrl, TOKEN);
  const board = clientOf(api.baseUrl, dashboard);
  const build = clientOf(api.baseUrl, ci);
  const ops = clientOf(api.baseUrl, operator);
  assert.equal((await board.describeKey()).can, { read: true, start: false, control: false, admin: false });

  const waiting = await admin.start('awaits_feedback', {}, { workflowId: uniqueId('kc-wait') });
  assert.is((await board.status(waiting.workflowId)).status, 'running');
  const boardStop = await refusal(board.stop(waiting.workflowId));
  assert.equal([boardStop.status, boardStop.error], [403, 'ForbiddenError']);
  assert.match(boardStop.message, /API key "dashboard" lacks the "control" scope/);
  assert.match((await refusal(board.start('echo', { message: 'x' }))).message, /lacks the "start" scope/);

  const built = await build.start('echo', { message: 'ci' }, { catalog: 'main', workflowId: uniqueId('kc-ci') });
  assert.is(built.status, 'running');
  assert.match((await refusal(build.start('sleeper', { ms: 1 }))).message, /may not use workflow "sleeper" of catalog "main"/);
  const hidden = await refusal(build.status(waiting.workflowId));
  assert.equal([hidden.status, hidden.error], [404, 'WorkflowNotFoundError'], 'a run outside its limits does not exist for it');
  assert.match((await refusal(build.terminate(built.workflowId, built.runId))).message, /lacks the "control" scope/);

  assert.match((await refusal(ops.start('awaits_feedback', {}))).message, /lacks the "start" scope/);
  const fed = await ops.sendFeedback(waiting.workflowId, { ok: true });
  assert.is(fed.workflowId, waiting.workflowId);
});

test('the command: whoami for each key, a refusal as one line naming the scope (exit 3), what each key may do it does', async ({ api }) => {
  const who = await flowgate(api.baseUrl, operator, ['whoami']);
  assert.is(who.code, 0, who.stderr);
  assert.match(who.stdout, /^key:\s+operator\n/m);
  assert.match(who.stdout, /^may:\s+read yes, start no, control yes, admin no\n/m);
  const whoJson = await flowgate(api.baseUrl, ci, ['whoami', '--json']);
  assert.equal(JSON.parse(whoJson.stdout).key.workflows, ['echo']);

  const started = await flowgate(api.baseUrl, ci, ['start', 'echo', '--catalog', 'main', '--input', '{"message":"cli"}', '--json']);
  assert.is(started.code, 0, started.stderr);
  const { workflowId } = JSON.parse(started.stdout) as { workflowId: string };
  const refused = await flowgate(api.baseUrl, dashboard, ['terminate', workflowId]);
  assert.is(refused.code, 3);
  assert.match(refused.stderr, /^flowgate terminate: ForbiddenError: API key "dashboard" lacks the "control" scope.*\(HTTP 403[^)]*\); `flowgate whoami` shows what this key may do\n$/);
  // Temporal's list may show a run a moment after its start (its visibility store lags): asked until it shows this one.
  const listed = await eventually('`flowgate runs --started-by ci` to list the run', async () => {
    const answer = await flowgate(api.baseUrl, dashboard, ['runs', '--started-by', 'ci', '--json']);
    assert.is(answer.code, 0, answer.stderr);
    return (JSON.parse(answer.stdout) as { runs: { workflowId: string }[] }).runs.some((run) => run.workflowId === workflowId) && answer;
  });
  assert.ok((JSON.parse(listed.stdout) as { runs: { workflowId: string; startedBy: string }[] }).runs.some((run) => run.workflowId === workflowId && run.startedBy === 'ci'));
  const notAllowed = await flowgate(api.baseUrl, ci, ['start', 'sleeper', '--input', '{"ms":1}']);
  assert.is(notAllowed.code, 3);
  assert.match(notAllowed.stderr, /may not use workflow "sleeper"/);
});

test('a rotated key works without a restart: the new one beside the old, then the old one revoked', async ({ api }) => {
  const rotated = testKey('ci', ['start', 'read'], { catalogs: ['main'], workflows: ['echo'] });
  const next = { ...rotated, entry: { ...rotated.entry, id: 'ci-2026-11' } };
  keyFile.write([dashboard, ci, operator, next]);
  const fresh = clientOf(api.baseUrl, next);
  await eventually('the new key to be in force', async () => {
    assert.is((await fresh.describeKey()).key?.id, 'ci-2026-11');
    return true;
  }, { intervalMs: 50, retryErrors: true });
  const old = clientOf(api.baseUrl, ci);
  assert.is((await old.describeKey()).key?.id, 'ci', 'both live while rotating');
  keyFile.write([dashboard, operator, next]);
  await eventually('the old key to be revoked', async () => (await refusal(old.describeKey()).catch(() => undefined))?.status === 401, { intervalMs: 50 });
  const started = await fresh.start('echo', { message: 'rotated' }, { catalog: 'main' });
  assert.is((await fresh.status(started.workflowId)).startedBy, 'ci-2026-11');
  keyFile.write([dashboard, ci, operator]);
});

test.run();

const open = contractSuite('GET /auth/key without authentication');

open('authentication off: no key, everything allowed', async ({ api }) => {
  const described = await http(api, 'GET', '/auth/key');
  expectStatus(described, 200);
  assert.equal(described.body, { authentication: 'off', key: null, can: { read: true, start: true, control: true, admin: true } });
});

open.run();
