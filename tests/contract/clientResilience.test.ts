import * as assert from 'uvu/assert';
import { createFlowgateClient, FlowgateApiError, type FlowgateClient, type FollowEvent } from '../../adapters/client/index.js';
import { arithmetic, awaitsFeedback, sleeper } from '../fixtures/workflows/basic.js';
import { continuesIntoWait } from '../fixtures/workflows/contract.js';
import { otherOnly } from '../fixtures/workflows/otherCatalog.js';
import { contractSuite, UUID } from '../support/contract.js';
import { afterEvent, startCuttingProxy } from '../support/cuttingProxy.js';
import type { LogLine, TestApi } from '../support/engines.js';
import { uniqueId, waitForEvent } from '../support/http.js';
import { eventually } from '../support/eventually.js';

/** flowgate/client never losing a run: 408s followed, keyed retries, refusals retried, streams resumed (docs/client.md). */
const test = contractSuite('client: long-polls, retries, resumed streams');

/** The access-log lines of requests whose path contains `fragment`. */
const accessLines = (api: TestApi, fragment: string): LogLine[] =>
  api.logs.filter((line) => line.msg === 'http request' && String(line.path).includes(fragment));

/** Waits until the server logged an answer with `status` to a request whose path contains `fragment`. */
async function logged(api: TestApi, fragment: string, status: number): Promise<void> {
  await eventually(`the server to answer ${status} to ${fragment}`, () => accessLines(api, fragment).some((line) => line.status === status), { intervalMs: 10 });
}

async function using<T>(client: FlowgateClient, body: (client: FlowgateClient) => Promise<T>): Promise<T> {
  try {
    return await body(client);
  } finally {
    await client.close();
  }
}

test('run() follows a 408 with ?wait= long-polls until the run closes', ({ api }) =>
  using(createFlowgateClient({ baseUrl: api.baseUrl }), async (client) => {
    const workflowId = uniqueId('client-408');
    const running = client.run(awaitsFeedback, {}, { workflowId, pollSeconds: 0.2 });
    // The run outlived the request's timeout, and a long-poll of its pinned result ended with it still open.
    await logged(api, '/workflow/run', 408);
    await logged(api, `/workflow/${workflowId}/runs/`, 424);
    await waitForEvent(api, workflowId, 'workflow_started');
    await client.sendFeedback(workflowId, { approved: 'late' });
    const result = await running;
    assert.is(result.status, 'completed');
    assert.equal(result.output, { reply: { approved: 'late' } });
    assert.ok(accessLines(api, `/workflow/${workflowId}/runs/`).some((line) => line.status === 200));
  }));

test('run() whose 408 names a run that continued as new waits for the end of the chain', ({ api }) =>
  using(createFlowgateClient({ baseUrl: api.baseUrl }), async (client) => {
    const workflowId = uniqueId('client-chain');
    const running = client.run(continuesIntoWait, { ms: 0 }, { workflowId, pollSeconds: 0.2 });
    await logged(api, '/workflow/run', 408);
    // The pinned run answered continued_as_new; the id form's wait then ran out on the chain's waiting run.
    await logged(api, `/workflow/${workflowId}/result`, 424);
    await client.sendFeedback(workflowId, { chained: true });
    const result = await running;
    assert.is(result.status, 'completed');
    assert.equal(result.output, { reply: { chained: true } });
  }));

test('run() past the caller\'s deadline throws the 408, naming the run, which keeps going', ({ api }) =>
  using(createFlowgateClient({ baseUrl: api.baseUrl }), async (client) => {
    const workflowId = uniqueId('client-deadline');
    let error: unknown;
    try {
      await client.run(awaitsFeedback, {}, { workflowId, timeoutMs: 300, pollSeconds: 0.1 });
    } catch (caught) {
      error = caught;
    }
    assert.instance(error, FlowgateApiError);
    const timedOut = error as FlowgateApiError;
    assert.is(timedOut.status, 408);
    assert.is(timedOut.error, 'WorkflowExecutionTimedOutError');
    assert.is(timedOut.workflowId, workflowId);
    assert.match(timedOut.runId ?? '', UUID);
    assert.is(timedOut.location, `/workflow/${workflowId}/runs/${timedOut.runId}/result`);
    assert.is((await client.status(workflowId, { runId: timedOut.runId! })).status, 'running');
    await client.terminate(workflowId, timedOut.runId!);
  }));

test('a start whose answer was lost is retried with its Idempotency-Key and joins the first start', async ({ api }) => {
  const dropFirstStart = () => ({ matches: (request: string) => request.startsWith('POST /workflow '), cutAfter: () => 0 });
  const proxy = await startCuttingProxy(api.baseUrl, [dropFirstStart()]);
  try {
    const workflowId = uniqueId('client-keyed');
    const started = await using(createFlowgateClient({ baseUrl: proxy.url }), (client) => client.start(sleeper, { ms: 3_600_000 }, { workflowId }));
    assert.is(started.workflowId, workflowId);
    const starts = proxy.requests.filter((request) => request.startsWith('POST /workflow '));
    assert.is(starts.length, 2, 'the first start reached the server, its answer was dropped, the retry went through');
    const keys = starts.map((request) => /idempotency-key: (\S+)/i.exec(request)?.[1]);
    assert.ok(keys[0]);
    assert.is(keys[1], keys[0], 'the retry carries the same key');
    // Both reached the server and both were answered 200 with the one run: the retry joined the first start.
    const answered = accessLines(api, '/workflow').filter((line) => line.method === 'POST' && line.path === '/workflow');
    assert.ok(answered.filter((line) => line.status === 200).length >= 2);
    const client = createFlowgateClient({ baseUrl: api.baseUrl });
    await using(client, async () => {
      assert.is((await client.status(workflowId)).runId, started.runId);
      await client.terminate(workflowId, started.runId);
    });

    // Without a key the client does not retry a start whose fate is unknown: the dropped connection is the answer.
    const unkeyed = await startCuttingProxy(api.baseUrl, [dropFirstStart()]);
    try {
      let failed: unknown;
      await using(createFlowgateClient({ baseUrl: unkeyed.url }), (plain) => plain.start(sleeper, { ms: 1 }, { idempotencyKey: false })).catch((error) => {
        failed = error;
      });
      assert.ok(failed instanceof Error && !(failed instanceof FlowgateApiError), String(failed));
      assert.is(unkeyed.requests.filter((request) => request.startsWith('POST /workflow ')).length, 1);
    } finally {
      await unkeyed.close();
    }
  } finally {
    await proxy.close();
  }
});

test('a 503 (no worker for the catalog) is retried after Retry-After until the worker is back; past the budget it is the answer', ({ api }) =>
  using(createFlowgateClient({ baseUrl: api.baseUrl, retry: { maxRetries: 60, maxWaitMs: 120_000 } }), async (client) => {
    // One stopped worker for both halves: stopping and starting a Temporal worker is the slow part.
    await api.stopWorker('other');
    let restarted: Promise<void> | undefined;
    try {
      const once = createFlowgateClient({ baseUrl: api.baseUrl, retry: { maxRetries: 0 } });
      const error = await using(once, (strict) => strict.start(otherOnly, {}, { catalog: 'other' }).then(() => undefined, (caught: unknown) => caught));
      assert.instance(error, FlowgateApiError);
      assert.is((error as FlowgateApiError).status, 503);
      assert.is((error as FlowgateApiError).error, 'CatalogNotAvailableError');
      assert.ok(((error as FlowgateApiError).retryAfter ?? 0) >= 1);
      assert.is(accessLines(api, '/workflow').filter((line) => line.path === '/workflow' && line.status === 503).length, 1, 'not retried');

      const starting = client.run(otherOnly, {}, { catalog: 'other' });
      await logged(api, '/workflow/run', 503);
      restarted = api.startWorker('other');
      const result = await starting;
      assert.is(result.status, 'completed');
      assert.equal(result.output, { ok: true });
    } finally {
      await (restarted ?? api.startWorker('other'));
    }
  }));

test('a 429 from a gateway in front of the API is retried after its Retry-After', async ({ api }) => {
  const body = JSON.stringify({ error: 'TooManyRequests', message: 'slow down' });
  const proxy = await startCuttingProxy(api.baseUrl, [
    {
      matches: (request) => request.startsWith('GET /workflow/list'),
      respond: `HTTP/1.1 429 Too Many Requests\r\nretry-after: 0\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\nconnection: close\r\n\r\n${body}`,
    },
  ]);
  try {
    const list = await using(createFlowgateClient({ baseUrl: proxy.url }), (client) => client.listWorkflows());
    assert.ok(list.workflows.some((workflow) => workflow.name === 'echo'));
    assert.is(proxy.requests.filter((request) => request.startsWith('GET /workflow/list')).length, 2);
    const again = await startCuttingProxy(api.baseUrl, [
      { matches: (request) => request.startsWith('GET /workflow/list'), respond: `HTTP/1.1 429 Too Many Requests\r\nretry-after: 0\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\nconnection: close\r\n\r\n${body}` },
    ]);
    try {
      const refused = await using(createFlowgateClient({ baseUrl: again.url, retry: { maxRetries: 0 } }), (client) => client.listWorkflows().catch((error: unknown) => error));
      assert.instance(refused, FlowgateApiError);
      assert.is((refused as FlowgateApiError).status, 429);
      assert.is((refused as FlowgateApiError).error, 'TooManyRequests');
    } finally {
      await again.close();
    }
  } finally {
    await proxy.close();
  }
});

test('an AbortSignal ends a waiting run() and a follow()', ({ api }) =>
  using(createFlowgateClient({ baseUrl: api.baseUrl }), async (client) => {
    const workflowId = uniqueId('client-abort');
    const controller = new AbortController();
    const running = client.run(awaitsFeedback, {}, { workflowId, pollSeconds: 0.2, signal: controller.signal }).catch((error: unknown) => error);
    await logged(api, `/workflow/${workflowId}/runs/`, 424);
    controller.abort(new Error('caller gave up'));
    const error = await running;
    assert.instance(error, Error);
    assert.is((error as Error).message, 'caller gave up');
    assert.is((await client.status(workflowId)).status, 'running', 'aborting the wait does not stop the run');

    const following = new AbortController();
    const seen: string[] = [];
    const followed = (async () => {
      for await (const event of client.follow(workflowId, { signal: following.signal })) {
        seen.push(event.event);
        if (event.event === 'history') following.abort(new Error('enough'));
      }
    })().catch((caught: unknown) => caught);
    const ended = await followed;
    assert.instance(ended, Error);
    assert.ok(seen.includes('workflow'));
    const { runId } = await client.status(workflowId);
    await client.terminate(workflowId, runId);
  }));

test('follow() resumes after a dropped connection with Last-Event-ID, neither repeating nor skipping an event', async ({ api }) => {
  const direct = createFlowgateClient({ baseUrl: api.baseUrl });
  const proxy = await startCuttingProxy(api.baseUrl, [
    { matches: (request) => /accept: text\/event-stream/i.test(request), cutAfter: afterEvent('history', 3) },
  ]);
  try {
    const done = await direct.run(arithmetic, { n: 2 });
    const { events } = await direct.history(done.workflowId, { runId: done.runId!, pageSize: 200 });
    assert.ok(events.length > 4, `enough events to cut in the middle: ${events.length}`);
    const followed: FollowEvent[] = [];
    await using(createFlowgateClient({ baseUrl: proxy.url }), async (client) => {
      for await (const event of client.follow(done.workflowId)) followed.push(event);
    });
    const streams = proxy.requests.filter((request) => /accept: text\/event-stream/i.test(request));
    assert.is(streams.length, 2, 'one cut stream, one resumed');
    assert.match(streams[1]!, /last-event-id: 3\r\n/i);
    assert.match(streams[1]!, new RegExp(`/workflow/${done.workflowId}/runs/${done.runId}/history`), 'the resumed stream is pinned to the run');
    assert.equal(followed.filter((event) => event.event === 'workflow').length, 1);
    assert.equal(followed.at(-1), { event: 'done', data: { status: 'completed' } });
    const history = followed.flatMap((event) => (event.event === 'history' ? [event.data] : []));
    assert.equal(history, events);
  } finally {
    await proxy.close();
    await direct.close();
  }
});

test('follow() cut after the closing event, before done: the resumed stream is a 204 and done carries the status', async ({ api }) => {
  const direct = createFlowgateClient({ baseUrl: api.baseUrl });
  try {
    const done = await direct.run(arithmetic, { n: 3 });
    const { events } = await direct.history(done.workflowId, { runId: done.runId!, pageSize: 200 });
    const proxy = await startCuttingProxy(api.baseUrl, [
      { matches: (request) => /accept: text\/event-stream/i.test(request), cutAfter: afterEvent('history', events.length) },
    ]);
    try {
      const followed: FollowEvent[] = [];
      await using(createFlowgateClient({ baseUrl: proxy.url }), async (client) => {
        for await (const event of client.follow(done.workflowId)) followed.push(event);
      });
      const streams = proxy.requests.filter((request) => /accept: text\/event-stream/i.test(request));
      assert.is(streams.length, 2, 'one cut stream, one resumed (answered 204), no more');
      assert.match(streams[1]!, new RegExp(`last-event-id: ${events.at(-1)!.eventId}\r\n`, 'i'));
      assert.equal(followed.map((event) => event.event), ['workflow', ...events.map(() => 'history'), 'done']);
      assert.equal(followed.at(-1), { event: 'done', data: { status: 'completed' } });
    } finally {
      await proxy.close();
    }
  } finally {
    await direct.close();
  }
});

test('follow() of an open run yields events as they happen and ends with done', ({ api }) =>
  using(createFlowgateClient({ baseUrl: api.baseUrl }), async (client) => {
    const { workflowId, runId } = await client.start(awaitsFeedback, {});
    const types: string[] = [];
    for await (const event of client.follow(workflowId, { runId })) {
      if (event.event === 'history') {
        types.push(event.data.type);
        if (event.data.type === 'workflow_started') await client.sendFeedback(workflowId, { go: true });
      }
      if (event.event === 'done') assert.is(event.data.status, 'completed');
    }
    assert.is(types[0], 'workflow_started');
    assert.ok(types.includes('signal_received'));
    assert.is(types.at(-1), 'workflow_completed');
  }));

test.run();
