import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTemporalDevServer, type TemporalDevServer } from '../../scripts/infra/index.mjs';
import { engineUnderTest, startTestApi, type TestApi } from '../support/engines.js';
import { FIXTURE_CATALOGS } from '../support/fixtureCatalogs.js';
import { uniqueId, waitForEvent } from '../support/http.js';
import { expectError, expectStatus, historyEvents, http, start, waitUntil, wf } from '../support/contract.js';

/*
 * A run's history has a byte cap on both engines (docs/api.md): Temporal's limit.historySize.error, the embedded
 * engine's MEMORY_MAX_HISTORY_BYTES. Both are set to 1 MiB here: on Temporal this file starts its own dev server
 * with that limit (the shared one raises it for large payloads, scripts/infra/README.md).
 */

const MiB = 1024 * 1024;

interface Context {
  api: TestApi;
  temporal?: TemporalDevServer;
  savedAddress?: string;
  startError?: unknown;
}

const test = suite<Context>('history size limit', {} as Context);

test.before(async (context) => {
  try {
    if (engineUnderTest() === 'temporal') {
      context.savedAddress = process.env.TEMPORAL_ADDRESS;
      context.temporal = await startTemporalDevServer({
        dynamicConfig: { 'limit.historySize.error': MiB, 'limit.historySize.warn': 256 * 1024 },
        log: () => {},
      });
      process.env.TEMPORAL_ADDRESS = context.temporal.address;
    }
    context.api = await startTestApi({ MEMORY_MAX_HISTORY_BYTES: String(MiB) }, { catalogs: [FIXTURE_CATALOGS[0]!] });
  } catch (error) {
    context.startError = error;
  }
});
test.before.each((context) => {
  if (context.startError !== undefined) throw context.startError;
});
test.after(async (context) => {
  await context.api?.close();
  await context.temporal?.stop();
  if (context.temporal) process.env.TEMPORAL_ADDRESS = context.savedAddress;
});

test('replies are taken until the history passes the cap; the run is then terminated with HistorySizeLimitExceededError and replies are 409', async ({ api }) => {
  const { workflowId, runId } = await start(api, 'sleeper', { ms: 3_600_000 }, uniqueId('history-cap'));
  await waitForEvent(api, workflowId, 'timer_started');
  const answers: number[] = [];
  for (let index = 0; index < 30 && answers.at(-1) !== 409; index += 1) {
    const reply = await http(api, 'POST', '/workflow/feedback', { json: { workflowId, payload: { index, blob: 'x'.repeat(190_000) } } });
    answers.push(reply.status);
    if (reply.status !== 200) expectError(reply, 409, 'WorkflowClosedError', { workflowId });
  }
  // Five replies of 190 kB stay under 1 MiB; the sixth takes the history past it: recorded, then the run is
  // terminated. Temporal does so at the run's next workflow task, so the replies sent until that task has run get in
  // too (one or two on a quiet machine, more on a loaded one) before it refuses them.
  const accepted = answers.filter((answer) => answer === 200).length;
  assert.equal(answers, [...Array(accepted).fill(200), 409]);
  if (api.engine === 'temporal') assert.ok(accepted >= 6, `accepted ${accepted}`);
  else assert.is(accepted, 6);

  await waitUntil(api, workflowId, 'terminated', runId);
  const result = await http(api, 'GET', `${wf(workflowId, runId)}/result`);
  expectStatus(result, 200);
  assert.is(result.body.status, 'terminated');
  assert.is(result.body.error?.name, 'HistorySizeLimitExceededError');
  const events = await historyEvents(api, workflowId, runId);
  assert.equal(events.filter((event) => event.type === 'signal_received').length, accepted, 'every accepted reply is in the history');
  assert.is(events.at(-1).type, 'workflow_terminated');
  assert.is(events.at(-1).attributes.reason, result.body.error.message);
  if (api.engine === 'temporal') {
    assert.is(result.body.error.message, 'Workflow history size exceeds limit.', "Temporal's own reason");
  } else {
    assert.match(result.body.error.message, /over the limit of 1048576 bytes \(MEMORY_MAX_HISTORY_BYTES\)/);
    assert.ok(api.logs.some((line) => line.level === 'warn' && /history is large/.test(line.msg) && line.runId === runId), 'warned first');
  }
});

test.run();
