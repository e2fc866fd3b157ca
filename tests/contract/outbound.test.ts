import * as assert from 'uvu/assert';
import { uniqueId } from '../support/http.js';
import { startCallbackReceiver, type CallbackReceiver } from '../support/callbackReceiver.js';
import { contractSuite, expectError, expectIssueAt, expectStatus, historyEvents, http, start, waitUntil, wf } from '../support/contract.js';
import type { TestApi } from '../support/engines.js';
import { eventually } from '../support/eventually.js';

/*
 * Outbound calls with OUTBOUND_ALLOWLIST unset (docs/reliability.md, "Outbound calls"): webhook targets and callback
 * receivers on loopback, private, link-local (metadata) ... addresses are refused. The receivers listen on loopback,
 * which is refused by default: a receiver that got nothing proves the refusal. Addresses off loopback appear only
 * where they are refused before anything starts (and with a workflow name nothing could run), so no test can send a
 * packet there even if the rule broke.
 */
// Public addresses allowed (the default; the other suites run with OUTBOUND_ALLOW_PUBLIC=off): the address rules
// alone decide here, and `localhost` is refused by its name, at the start and by the webhook sender.
const test = contractSuite('outbound address rules', { OUTBOUND_ALLOWLIST: '', OUTBOUND_ALLOW_PUBLIC: 'on' });

let receiver: CallbackReceiver;
test.before(async () => {
  receiver = await startCallbackReceiver();
});
test.after(async () => {
  await receiver?.close();
});

const SECRET = 's3cr3t-in-the-url';
const withSecret = (url: string): string => `${url}?token=${SECRET}&sig=abc`;
/** The receiver's port, by host name: `localhost`, which always means loopback (RFC 6761; /etc/hosts resolves it). */
const byName = (url: string): string => url.replace('//127.0.0.1:', '//localhost:');

async function waitForLog(api: TestApi, message: string, workflowId: string, timeoutMs = 30_000): Promise<Record<string, unknown>> {
  return eventually(`a "${message}" log line for ${workflowId}`, () => api.logs.find((entry) => entry.msg.startsWith(message) && entry.workflowId === workflowId), {
    timeoutMs,
    intervalMs: 50,
  });
}

function assertNoSecretLogged(api: TestApi): void {
  const leaks = api.logs.filter((line) => JSON.stringify(line).includes(SECRET));
  assert.equal(leaks, [], 'no log line carries the secret of a URL');
}

test('a callbackUrl naming a refused address is a 400 ValidationError at callbackUrl on every start path, and nothing starts', async ({ api }) => {
  const url = withSecret(receiver.url('/ok/literal'));
  const starts: { path: string; headers?: Record<string, string> }[] = [
    { path: '/workflow' },
    { path: '/workflow/run' },
    { path: '/workflow', headers: { 'idempotency-key': uniqueId('key') } },
    { path: '/workflow/run', headers: { 'idempotency-key': uniqueId('key') } },
  ];
  for (const { path, headers } of starts) {
    const workflowId = uniqueId('out-literal');
    const response = await http(api, 'POST', path, { json: { workflowName: 'echo', workflowId, input: { message: 'x' }, callbackUrl: url }, ...(headers ? { headers } : {}) });
    expectError(response, 400, 'ValidationError');
    expectIssueAt(response, 'callbackUrl');
    assert.match(response.body.message, /127\.0\.0\.1 is a loopback address/);
    assert.not.ok(response.text.includes(SECRET), 'the answer does not repeat the secret');
    expectError(await http(api, 'GET', `${wf(workflowId)}/status`), 404, 'WorkflowNotFoundError', { maybeWorkflowId: workflowId });
  }
  assert.equal(receiver.calls('/ok/literal'), []);
});

test('metadata, private, link-local, unspecified and IPv4-mapped literals are refused at start, checked before the workflow is looked up', async ({ api }) => {
  const refused = ['http://169.254.169.254/latest/meta-data/', 'http://10.0.0.1/', 'http://172.16.5.4:8080/x', 'http://192.168.1.1/', 'http://0.0.0.0:80/', 'http://100.100.100.200/', 'http://224.0.0.1/'];
  for (const callbackUrl of refused) {
    const response = await http(api, 'POST', '/workflow', { json: { workflowName: 'no_such_workflow', input: {}, callbackUrl } });
    expectError(response, 400, 'ValidationError');
    expectIssueAt(response, 'callbackUrl');
  }
});

test('a webhook target on a refused address fails its wait at once with OutboundAddressRefusedError, in the result, history and trace', async ({ api }) => {
  for (const target of [withSecret(receiver.url('/ok/webhook')), byName(withSecret(receiver.url('/ok/webhook')))]) {
    const { workflowId, runId } = await start(api, 'awaits_feedback', { url: target }, uniqueId('out-webhook'));
    await waitUntil(api, workflowId, 'failed');
    const result = await http(api, 'GET', `${wf(workflowId, runId)}/result`);
    expectStatus(result, 200);
    assert.is(result.body.error.name, 'OutboundAddressRefusedError', JSON.stringify(result.body.error));
    assert.match(result.body.error.message, /webhook target http:\/\/(127\.0\.0\.1|localhost):\d+\/ok\/webhook\?token=REDACTED&sig=REDACTED/);
    assert.match(result.body.error.message, /(127\.0\.0\.1|::1)(,| is) a loopback address|localhost is a loopback name/);
    assert.not.ok(JSON.stringify(result.body.error).includes(SECRET), 'the error carries the URL redacted');
    const failed = (await historyEvents(api, workflowId, runId)).filter((event) => event.type === 'step_failed');
    assert.is(failed.length, 1, 'one attempt: the refusal is not retried');
    assert.is(failed[0].attributes.error.name, 'OutboundAddressRefusedError');
    const trace = await http(api, 'GET', `${wf(workflowId, runId)}/trace-log`);
    expectStatus(trace, 200);
    assert.is(trace.body.data.steps.find((step: { name: string }) => step.name === 'webhook')?.error?.name, 'OutboundAddressRefusedError');
  }
  assert.equal(receiver.calls('/ok/webhook'), [], 'the target got nothing');
  assertNoSecretLogged(api);
});

test('a callbackUrl on a name that always means loopback (localhost, *.localhost) is a 400 at start like 127.0.0.1; nothing starts', async ({ api }) => {
  for (const host of ['localhost', 'LOCALHOST', 'hooks.localhost']) {
    const url = withSecret(receiver.url('/ok/loopback-name').replace('//127.0.0.1:', `//${host}:`));
    for (const path of ['/workflow', '/workflow/run']) {
      const workflowId = uniqueId('out-localhost');
      const response = await http(api, 'POST', path, { json: { workflowName: 'echo', workflowId, input: { message: 'x' }, callbackUrl: url } });
      expectError(response, 400, 'ValidationError');
      expectIssueAt(response, 'callbackUrl');
      assert.match(response.body.message, /callbackUrl is refused: (hooks\.)?localhost is a loopback name/);
      assert.not.ok(response.text.includes(SECRET), 'the answer does not repeat the secret');
      expectError(await http(api, 'GET', `${wf(workflowId)}/status`), 404, 'WorkflowNotFoundError', { maybeWorkflowId: workflowId });
    }
  }
  assert.equal(receiver.calls('/ok/loopback-name'), []);
});

/** The failure types of the delivery activity's attempts, from the history of the run's callback workflow. */
async function callbackActivityFailureTypes(runId: string): Promise<string[]> {
  const { Connection, Client } = await import('@temporalio/client');
  const connection = await Connection.connect({ address: process.env.TEMPORAL_ADDRESS! });
  try {
    const client = new Client({ connection, namespace: process.env.TEMPORAL_NAMESPACE ?? 'default' });
    const handle = client.workflow.getHandle(`flowgate.callback:${runId}`);
    await handle.result();
    const history = await handle.fetchHistory();
    return (history.events ?? []).flatMap((event) => {
      const type = event.activityTaskFailedEventAttributes?.failure?.applicationFailureInfo?.type;
      return type ? [type] : [];
    });
  } finally {
    await connection.close();
  }
}

test.run();

/*
 * A loopback address opened (127.0.0.2, where nothing listens): `localhost` may stand for it, so the name passes the
 * start, and the address it resolves to (127.0.0.1 or ::1, both still refused) decides when the callback is sent.
 */
const opened = contractSuite('outbound address rules, a loopback address opened', { OUTBOUND_ALLOWLIST: '127.0.0.2', OUTBOUND_ALLOW_PUBLIC: 'on' });
opened.before(async () => {
  receiver = await startCallbackReceiver();
});
opened.after(async () => {
  await receiver?.close();
});

opened('a callbackUrl naming a host is accepted at start and refused at delivery, on the address it resolves to; logged with the run ids, URL redacted', async ({ api }) => {
  const url = byName(withSecret(receiver.url('/ok/by-name')));
  const { workflowId, runId } = await start(api, 'echo', { message: 'resolved' }, uniqueId('out-callback'), { callbackUrl: url });
  const line = await waitForLog(api, 'run callback not sent: its receiver’s address is refused', workflowId);
  assert.is(line.level, 'error');
  assert.is(line.runId, runId);
  assert.match(String(line.url), /^http:\/\/localhost:\d+\/ok\/by-name\?token=REDACTED&sig=REDACTED$/);
  assert.match(String(line.address), /^(127\.0\.0\.1|::1)$/);
  assert.equal(receiver.calls(`/ok/by-name?token=${SECRET}&sig=abc`), [], 'the receiver got nothing');
  assertNoSecretLogged(api);
  if (api.engine === 'temporal') {
    // On Temporal the refusal is also the failure of the delivery's activity, in the history of flowgate.callback:<runId>.
    const types = await callbackActivityFailureTypes(runId);
    assert.equal(types, ['OutboundAddressRefusedError'], 'one attempt, not retried');
  }
});

opened.run();

