// `flowgate schedule` output for people, as pure functions of the API's answers (composition/cli/render/schedules.ts).
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Schedule } from '../../../adapters/client/index.js';
import { renderSchedule, renderScheduleList, secondsText } from '../../../composition/cli/render/schedules.js';
import { durationOption } from '../../../composition/cli/commands/schedules.js';

const NIGHTLY: Schedule = {
  scheduleId: 'nightly-sync',
  workflowName: 'sync',
  catalog: 'main',
  input: { source: 'crm' },
  spec: { cron: ['30 2 * * *'], timezone: 'Europe/Berlin', startAt: '2026-01-01T00:00:00.000Z', endAt: null, jitterSeconds: 60 },
  policy: { overlap: 'skip', catchupWindowSeconds: 3600, pauseOnFailure: true },
  paused: true,
  note: 'owned by the data team',
  actionCount: 12,
  missedCount: 1,
  nextFireTimes: [],
  recentActions: [
    { scheduledAt: '2026-03-01T01:30:00.000Z', startedAt: '2026-03-01T01:30:41.000Z', workflowId: 'nightly-sync-2026-03-01T01:30:00Z', runId: 'r-1' },
  ],
  runningRuns: [],
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-03-02T08:00:00.000Z',
  createdBy: 'ops',
  updatedBy: 'oncall',
};

const { createdBy: _createdBy, updatedBy: _updatedBy, ...unattributed } = NIGHTLY;
const EVERY: Schedule = {
  ...unattributed,
  scheduleId: 'tick',
  workflowName: 'echo',
  input: { message: 'x' },
  spec: { every: '1h', offset: '15m', timezone: 'UTC', startAt: null, endAt: null, jitterSeconds: 0 },
  policy: { overlap: 'allow_all', catchupWindowSeconds: 31_536_000, pauseOnFailure: false },
  paused: false,
  note: '',
  actionCount: 0,
  missedCount: 0,
  nextFireTimes: ['2026-03-02T09:15:00.000Z', '2026-03-02T10:15:00.000Z'],
  recentActions: [],
  runningRuns: [{ workflowId: 'tick-2026-03-02T08:15:00Z', runId: 'r-2' }],
};

const render = suite('render: schedules');

render('describe: spec, policy, paused with its note, counts, created and changed by, no fire times while paused, recent actions', () => {
  assert.is(
    renderSchedule(NIGHTLY),
    [
      'schedule:          nightly-sync',
      'workflow:          sync',
      'catalog:           main',
      'input:             {"source":"crm"}',
      'cron:              30 2 * * *',
      'timezone:          Europe/Berlin',
      'start:             2026-01-01T00:00:00.000Z',
      'end:               -',
      'jitter:            1m',
      'overlap:           skip',
      'catch-up window:   1h',
      'pause on failure:  yes',
      'state:             paused',
      'note:              owned by the data team',
      'actions:           12 started, 1 missed',
      'running:           none',
      'created:           2026-01-01T00:00:00.000Z by ops',
      'updated:           2026-03-02T08:00:00.000Z by oncall',
      'next fire times: none while paused',
      'recent actions (newest last):',
      'SCHEDULED                 STARTED                   WORKFLOW ID                        RUN ID',
      '2026-03-01T01:30:00.000Z  2026-03-01T01:30:41.000Z  nightly-sync-2026-03-01T01:30:00Z  r-1',
      '',
    ].join('\n'),
  );
});

render('describe: every and offset, the next fire times, the open run, no key recorded', () => {
  const text = renderSchedule(EVERY);
  assert.match(text, /^every: +1h\noffset: +15m\n/m);
  assert.match(text, /^jitter: +none$/m);
  assert.match(text, /^catch-up window: +365d$/m);
  assert.match(text, /^state: +active\nnote: +-$/m);
  assert.match(text, /^running: +tick-2026-03-02T08:15:00Z run r-2$/m);
  assert.match(text, /^created: +2026-01-01T00:00:00.000Z$/m);
  assert.match(text, /next fire times:\n  2026-03-02T09:15:00.000Z\n  2026-03-02T10:15:00.000Z\nrecent actions: none\n$/);
});

render('a list: a row per schedule with its state, next fire, actions and calendar; the next page token', () => {
  const text = renderScheduleList({ schedules: [NIGHTLY, EVERY, { ...NIGHTLY, scheduleId: 'both', spec: { ...NIGHTLY.spec, cron: ['0 1 * * *', '0 13 * * *'], timezone: 'UTC' } }], nextPageToken: 'p2' });
  assert.is(
    text,
    [
      'SCHEDULE      WORKFLOW  STATE   NEXT FIRE                 ACTIONS  WHEN',
      'nightly-sync  sync      paused  -                         12       cron 30 2 * * * (Europe/Berlin)',
      'tick          echo      active  2026-03-02T09:15:00.000Z  0        every 1h offset 15m',
      'both          sync      paused  -                         12       cron 0 1 * * * | 0 13 * * *',
      'next page: --page-token p2',
      '',
    ].join('\n'),
  );
  assert.is(renderScheduleList({ schedules: [], nextPageToken: null }), 'no schedules\n');
  assert.is(renderScheduleList({ schedules: [], nextPageToken: 'T2' }), 'no schedules on this page\nnext page: --page-token T2\n');
});

render('seconds as durations: units from days to seconds, a fraction in seconds', () => {
  assert.equal([0, 45, 60, 90, 3600, 5400, 86_400, 90_061, 2.5].map(secondsText), ['0s', '45s', '1m', '1m30s', '1h', '1h30m', '1d', '1d1h1m1s', '2.5s']);
});

render('--jitter and --catchup-window: a duration or seconds; a fraction only where it may be one', () => {
  assert.equal(
    ['30', '30s', '1m30s', '1h', '1d', '2.5'].map((text) => durationOption(text, 'jitter', { whole: false })),
    [30, 30, 90, 3600, 86_400, 2.5],
  );
  assert.is(durationOption(undefined, 'jitter', { whole: false }), undefined);
  assert.throws(() => durationOption('2.5', 'catchup-window', { whole: true }), /--catchup-window must be a duration .* or a whole number of seconds, got "2.5"/);
  assert.throws(() => durationOption('1h 30m', 'jitter', { whole: false }), /--jitter must be a duration/);
  assert.throws(() => durationOption('m', 'jitter', { whole: false }), /--jitter must be a duration/);
});

render.run();
