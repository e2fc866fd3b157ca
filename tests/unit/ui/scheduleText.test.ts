import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { lastAction, policyWords, scheduleState, specSummary } from '../../../ui/src/scheduleText.js';

/** How the schedule pages put a schedule into words (ui/src/scheduleText.ts). */

const base = { timezone: 'UTC', startAt: null, endAt: null, jitterSeconds: 0 };

test('a spec in one line: its cron expressions, or its interval and offset', () => {
  assert.is(specSummary({ ...base, cron: ['30 2 * * *'] }), '30 2 * * *');
  assert.is(specSummary({ ...base, cron: ['30 2 * * *', '0 12 * * 1'] }), '30 2 * * *; 0 12 * * 1');
  assert.is(specSummary({ ...base, every: '30s' }), 'every 30s');
  assert.is(specSummary({ ...base, every: '1h', offset: '15m' }), 'every 1h, offset 15m');
  assert.is(specSummary({ ...base, cron: [] }), '—');
});

test('state, last action and policy names', () => {
  assert.is(scheduleState({ paused: true }), 'paused');
  assert.is(scheduleState({ paused: false }), 'active');
  const older = { scheduledAt: '2026-03-01T01:30:00Z', startedAt: '2026-03-01T01:30:00.100Z', workflowId: 'a-2026-03-01T01:30:00Z', runId: 'r1' };
  const newer = { ...older, workflowId: 'a-2026-03-01T01:31:00Z', runId: 'r2' };
  assert.is(lastAction({ recentActions: [older, newer] }), newer, 'the API lists them newest last');
  assert.is(lastAction({ recentActions: [] }), undefined);
  assert.is(policyWords('terminate_other'), 'terminate other');
});

test.run();
