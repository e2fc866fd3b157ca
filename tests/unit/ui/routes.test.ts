import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parseRoute, runHref, scheduleHref, schedulesHref, startHref } from '../../../ui/src/routes.js';
import { formatDuration, statusLabel } from '../../../ui/src/format.js';

/** The page's own URLs (ui/src/routes.ts) and the formatting the views share. */

test('paths below /ui name a page; ids are one percent-encoded segment each', () => {
  assert.is(parseRoute('', '').page, 'runs');
  assert.is(parseRoute('runs', '?status=failed').page, 'runs');
  assert.is((parseRoute('runs/', '?status=failed') as { query: URLSearchParams }).query.get('status'), 'failed');
  assert.equal(parseRoute('runs/order%2F42/0b7f8c3e', ''), { page: 'run', workflowId: 'order/42', runId: '0b7f8c3e' });
  assert.equal(parseRoute('runs/order%2F42', ''), { page: 'run', workflowId: 'order/42', runId: undefined });
  assert.equal(parseRoute('start', '?workflow=echo&catalog=main'), { page: 'start', workflowName: 'echo', catalog: 'main' });
  for (const path of ['runs//x', 'runs/a/b/c', 'runs/%E0%A4%A', 'elsewhere', 'start/x']) assert.is(parseRoute(path, '').page, 'not-found', path);
});

test('schedules: the list (its filters in the query) and one schedule by its id, one percent-encoded segment', () => {
  assert.is(parseRoute('schedules', '').page, 'schedules');
  assert.is((parseRoute('schedules/', '?workflowName=echo') as { query: URLSearchParams }).query.get('workflowName'), 'echo');
  assert.equal(parseRoute('schedules/nightly-sync', ''), { page: 'schedule', scheduleId: 'nightly-sync' });
  assert.equal(parseRoute('schedules/nightly%2Fsync/', ''), { page: 'schedule', scheduleId: 'nightly/sync' });
  for (const path of ['schedules//', 'schedules/a/b', 'schedules/%E0%A4%A', 'schedule/a']) assert.is(parseRoute(path, '').page, 'not-found', path);
  const href = scheduleHref('a/b c');
  assert.is(href, 'schedules/a%2Fb%20c');
  assert.equal(parseRoute(href, ''), { page: 'schedule', scheduleId: 'a/b c' });
  assert.is(schedulesHref(), 'schedules');
  assert.is(schedulesHref(new URLSearchParams({ workflowName: 'echo', limit: '10' })), 'schedules?workflowName=echo&limit=10');
});

test('hrefs round-trip through parseRoute', () => {
  const id = 'a/b c?d#e%';
  const href = runHref(id, 'run-1');
  assert.is(href, 'runs/a%2Fb%20c%3Fd%23e%25/run-1');
  assert.equal(parseRoute(href, ''), { page: 'run', workflowId: id, runId: 'run-1' });
  assert.is(startHref('echo', 'other'), 'start?workflow=echo&catalog=other');
  assert.is(startHref(), 'start');
});

test('durations read naturally at every scale; statuses in words', () => {
  assert.equal([0, 12.4, 999, 1500, 12_340, 61_000, 3_600_000 + 120_000, 50 * 3_600_000, -1].map(formatDuration), [
    '0 ms', '12 ms', '999 ms', '1.50 s', '12.3 s', '1 min 1 s', '1 h 2 min', '2 d 2 h', '—',
  ]);
  assert.is(statusLabel('continued_as_new'), 'continued as new');
});

test.run();
