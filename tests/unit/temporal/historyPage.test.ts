import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { HistoryMapper } from '../../../adapters/temporal/engine/historyMapper.js';
import { readHistoryPage } from '../../../adapters/temporal/engine/historyPage.js';
import { PageTokens } from '../../../adapters/pageTokens.js';
import { HISTORY_PAGE_MAX_BYTES, type HistoryEvent as NeutralEvent } from '../../../core/domain/history.js';
import { FakeClient } from './fakeClient.js';
import { arithmeticHistory, payloads, rawEvent } from './protoFixtures.js';

/** A longer run: the arithmetic history plus two more steps, so pages cross raw pages in every way. */
function longHistory() {
  const base = arithmeticHistory().slice(0, -1);
  const more = [12, 17].flatMap((id, index) => [
    rawEvent(id, 'EVENT_TYPE_ACTIVITY_TASK_SCHEDULED', { activityTaskScheduledEventAttributes: { activityType: { name: `arithmetic#s${index}` }, input: payloads(index) } }),
    rawEvent(id + 1, 'EVENT_TYPE_ACTIVITY_TASK_STARTED', { activityTaskStartedEventAttributes: { scheduledEventId: String(id), attempt: 1 } }),
    rawEvent(id + 2, 'EVENT_TYPE_ACTIVITY_TASK_COMPLETED', { activityTaskCompletedEventAttributes: { scheduledEventId: String(id), result: payloads(index) } }),
    rawEvent(id + 3, 'EVENT_TYPE_WORKFLOW_TASK_SCHEDULED'),
    rawEvent(id + 4, 'EVENT_TYPE_WORKFLOW_TASK_COMPLETED'),
  ]);
  return [...base, ...more, rawEvent(22, 'EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED', { workflowExecutionCompletedEventAttributes: { result: payloads(1) } })];
}

/** Temporal's paging as the engine sees it: `maximumPageSize` raw events per page, an opaque token, empty at the end. */
function historyServer(events: ReturnType<typeof longHistory>): FakeClient {
  return new FakeClient({
    getWorkflowExecutionHistory: (request: { maximumPageSize: number; nextPageToken?: Uint8Array }) => {
      const start = request.nextPageToken ? Number(Buffer.from(request.nextPageToken).toString()) : 0;
      const end = Math.min(events.length, start + (request.maximumPageSize || 1000));
      return { history: { events: events.slice(start, end) }, nextPageToken: end < events.length ? Buffer.from(String(end)) : new Uint8Array() };
    },
  });
}

const run = { workflowId: 'w', runId: 'r' };

async function readAll(client: FakeClient, tokens: PageTokens, pageSize: number): Promise<NeutralEvent[][]> {
  const pages: NeutralEvent[][] = [];
  let pageToken: string | undefined;
  do {
    const page = await readHistoryPage(client.calls(), tokens, run, { pageSize, ...(pageToken ? { pageToken } : {}) });
    pages.push(page.events);
    pageToken = page.nextPageToken ?? undefined;
  } while (pageToken);
  return pages;
}

test('pages of every size concatenate to the whole neutral history, none empty, each full but the last', async () => {
  const events = longHistory();
  const mapper = new HistoryMapper();
  const expected = events.flatMap((event) => mapper.map(event) ?? []);
  const client = historyServer(events);
  const tokens = new PageTokens();
  for (let pageSize = 1; pageSize <= expected.length + 1; pageSize += 1) {
    const pages = await readAll(client, tokens, pageSize);
    assert.equal(pages.flat(), expected, `pageSize ${pageSize}`);
    assert.ok(pages.every((page) => page.length > 0), 'no empty page');
    assert.ok(pages.slice(0, -1).every((page) => page.length === pageSize), 'full pages');
  }
});

test('a page ends at about HISTORY_PAGE_MAX_BYTES of events, its token continuing there; a larger event is a page of its own', async () => {
  // Steps returning 300 KB, 300 KB, 1.5 MB, 300 KB...: measured by their raw payloads' bytes, without decoding them.
  const sizes = [300_000, 300_000, 300_000, 300_000, 1_500_000, 300_000];
  const events = [
    rawEvent(1, 'EVENT_TYPE_WORKFLOW_EXECUTION_STARTED', { workflowExecutionStartedEventAttributes: { workflowType: { name: 'big' }, taskQueue: { name: 'main' }, input: payloads({}) } }),
    ...sizes.flatMap((size, index) => {
      const id = 2 + index * 3;
      return [
        rawEvent(id, 'EVENT_TYPE_ACTIVITY_TASK_SCHEDULED', { activityTaskScheduledEventAttributes: { activityType: { name: `big#s${index}` }, input: payloads(index) } }),
        rawEvent(id + 1, 'EVENT_TYPE_ACTIVITY_TASK_STARTED', { activityTaskStartedEventAttributes: { scheduledEventId: String(id), attempt: 1 } }),
        rawEvent(id + 2, 'EVENT_TYPE_ACTIVITY_TASK_COMPLETED', { activityTaskCompletedEventAttributes: { scheduledEventId: String(id), result: payloads('x'.repeat(size)) } }),
      ];
    }),
    rawEvent(2 + sizes.length * 3, 'EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED', { workflowExecutionCompletedEventAttributes: { result: payloads(1) } }),
  ];
  const mapper = new HistoryMapper();
  const expected = events.flatMap((event) => mapper.map(event) ?? []);
  const pages = await readAll(historyServer(events), new PageTokens(), 200);
  assert.equal(pages.flat(), expected, 'the whole history, in order');
  assert.ok(pages.length > 2, `${pages.length} pages`);
  for (const page of pages) {
    const bytes = Buffer.byteLength(JSON.stringify(page));
    assert.ok(page.length === 1 || bytes <= HISTORY_PAGE_MAX_BYTES * 1.05, `a page of ${page.length} events is ${bytes} bytes`);
  }
  assert.ok(pages.some((page) => page.length === 1 && JSON.stringify(page).length > 1_500_000), 'the 1.5 MB event is a page of its own');
});

test('a token is bound to the run and the page size; out-of-range page sizes are refused', async () => {
  const client = historyServer(longHistory());
  const tokens = new PageTokens();
  const first = await readHistoryPage(client.calls(), tokens, run, { pageSize: 2 });
  const pageToken = first.nextPageToken!;
  for (const [other, pageSize] of [[{ workflowId: 'w', runId: 'other' }, 2], [run, 3]] as const) {
    try {
      await readHistoryPage(client.calls(), tokens, other, { pageSize, pageToken });
      assert.unreachable('a token of another query');
    } catch (error) {
      assert.is((error as Error).name, 'ValidationError');
    }
  }
  for (const pageSize of [0, 201, 1.5]) {
    try {
      await readHistoryPage(client.calls(), tokens, run, { pageSize });
      assert.unreachable(`pageSize ${pageSize}`);
    } catch (error) {
      assert.is((error as Error).name, 'ValidationError');
    }
  }
});

test('the first page asks for raw events from the start; later pages hand Temporal its own token', async () => {
  const client = historyServer(longHistory());
  const tokens = new PageTokens();
  const first = await readHistoryPage(client.calls(), tokens, run, { pageSize: 3 });
  assert.is(client.requests[0]?.request.nextPageToken, undefined);
  assert.is(client.requests[0]?.request.maximumPageSize, 10);
  await readHistoryPage(client.calls(), tokens, run, { pageSize: 3, pageToken: first.nextPageToken! });
  assert.ok(client.requests.slice(1).some((entry) => entry.request.nextPageToken instanceof Uint8Array));
  assert.equal(client.requests[0]?.request.execution, run);
});

test.run();
