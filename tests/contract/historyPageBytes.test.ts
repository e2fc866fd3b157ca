import * as assert from 'uvu/assert';
import { fileURLToPath } from 'node:url';
import type { TestCatalog } from '../support/fixtureCatalogs.js';
import { uniqueId, type TestResponse } from '../support/http.js';
import { contractSuite, enc, expectStatus, http, openEventStream } from '../support/contract.js';

/*
 * HISTORY_PAGE_MAX_BYTES (docs/api.md, History): a history page ends before the event that would take it past about
 * that many bytes of JSON, however many pageSize allows, and its nextPageToken continues there; the event stream of
 * the same history, read about that much at a time by the engine, is still every event once, in order.
 */

const PAGE_MAX_BYTES = 400_000;

/** large_trace: each step returns `records` records of about 1 KiB (tests/long/workflows/largeAnswers.ts). */
const LARGE_ANSWERS: TestCatalog = { catalog: 'greedy', modules: [fileURLToPath(new URL('../long/workflows/largeAnswers.ts', import.meta.url))] };

const test = contractSuite('HISTORY_PAGE_MAX_BYTES', { HISTORY_PAGE_MAX_BYTES: String(PAGE_MAX_BYTES) }, { catalogs: [LARGE_ANSWERS] });

test('pages stop at about HISTORY_PAGE_MAX_BYTES before pageSize, continue by their token, and the event stream has every event', async ({ api }) => {
  const workflowId = uniqueId('pagebytes');
  // Six steps whose results are about 150 KB each: about two completed steps a page.
  const run = await http(api, 'POST', '/workflow/run', { json: { workflowName: 'large_trace', catalog: 'greedy', workflowId, input: { batches: 6, records: 150 }, timeout: 60 } });
  expectStatus(run, 200, 'the run');
  const { runId } = run.body as { runId: string };
  const historyPath = `/workflow/${enc(workflowId)}/runs/${enc(runId)}/history`;

  const pages: { events: { eventId: number; type: string }[]; bytes: number }[] = [];
  let pageToken: string | null = null;
  do {
    const page: TestResponse = await http(api, 'GET', `${historyPath}?pageSize=200${pageToken ? `&pageToken=${enc(pageToken)}` : ''}`);
    expectStatus(page, 200, `page ${pages.length + 1}`);
    pages.push({ events: page.body.events, bytes: Buffer.byteLength(JSON.stringify(page.body.events)) });
    pageToken = page.body.nextPageToken;
  } while (pageToken !== null && pages.length < 100);
  const events = pages.flatMap((page) => page.events);
  assert.equal(events.map((event) => event.eventId), events.map((_, index) => index + 1), 'every event once, in order, across the pages');
  assert.is(events.at(-1)!.type, 'workflow_completed');
  assert.ok(pages.length >= 3, `${pages.length} pages of ${events.length} events (pageSize 200 would hold them all)`);
  for (const [index, page] of pages.entries()) {
    // The engines measure an event about as its JSON (Temporal: by its raw payloads), so a little over is allowed.
    assert.ok(page.events.length === 1 || page.bytes <= PAGE_MAX_BYTES * 1.1, `page ${index + 1}: ${page.events.length} events in ${page.bytes} bytes`);
  }

  const stream = await openEventStream(api, historyPath);
  try {
    assert.is(stream.status, 200, 'the event stream');
    const sent = (await stream.rest(30_000)).filter((event) => event.event === 'history');
    assert.equal(sent.map((event) => event.data.eventId), events.map((event) => event.eventId), 'the stream has every event of the pages, in order');
  } finally {
    stream.close();
  }
});

test.run();
