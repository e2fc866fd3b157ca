import { z } from 'zod';
import type { CreateScheduleRequest, OverlapPolicy } from '../../../adapters/client/index.js';
import { OVERLAP_POLICIES, parseDuration } from '../../../core/domain/schedule.js';
import { textOption, UsageError, type CliContext, type CommandGroup, type OptionSpec, type OptionValue } from '../command.js';
import { renderSchedule, renderScheduleList } from '../render/schedules.js';
import { apiCommand, integerOption, jsonArgument, jsonFile, type Values } from './api.js';

/*
 * `flowgate schedule <action>`: the schedule endpoints (docs/schedules.md) through client.schedules. The options
 * are checked for their form here (a time, a duration, a policy name), so a typo is a usage error (exit 2) before any
 * call; what only the server knows (a cron expression, a time zone, the workflow and its input) it refuses with a
 * ValidationError or a 404 naming the field (exit 3).
 */

const OVERLAP_OPTION: OptionSpec = {
  type: 'string',
  value: 'P',
  description: `the overlap policy: ${OVERLAP_POLICIES.join(', ')}`,
};

const SCHEDULE_ID = ['SCHEDULE_ID'] as const;

export const scheduleCreateCommand = apiCommand({
  name: 'schedule create',
  summary: 'create a schedule that starts a workflow on cron expressions or an interval',
  synopsis: 'SCHEDULE_ID --workflow NAME (--cron EXPR... | --every D [--offset D]) [--input JSON|@FILE|- | --input-file FILE] [options]',
  arguments: SCHEDULE_ID,
  description: [
    'Creates SCHEDULE_ID (POST /schedules): the engine starts WORKFLOW with the input at each fire time, runs named',
    '<SCHEDULE_ID>-<fire time>. Give --cron (once per expression) or --every. Durations are 30s, 15m, 1h30m, 1d;',
    '--jitter and --catchup-window also take plain seconds. Prints the schedule as `flowgate schedule describe` does.',
  ].join('\n'),
  options: {
    workflow: { type: 'string', value: 'NAME', description: 'the workflow each fire starts (required)' },
    catalog: { type: 'string', value: 'C', description: "the workflow's catalog (default: the server's)" },
    input: { type: 'string', short: 'i', value: 'JSON', description: "every run's input: JSON, @FILE for a file of JSON, - for standard input" },
    'input-file': { type: 'string', value: 'FILE', description: "every run's input, from a file of JSON (as --input @FILE)" },
    cron: { type: 'string', multiple: true, value: 'EXPR', description: "a cron expression, e.g. '30 2 * * *'; repeat it for more (docs/schedules.md, Spec)" },
    every: { type: 'string', value: 'D', description: 'instead of --cron: fire every D, counted from the Unix epoch (30s, 15m, 1h)' },
    offset: { type: 'string', value: 'D', description: 'with --every: shift each fire by D (--every 1h --offset 15m: quarter past)' },
    timezone: { type: 'string', value: 'TZ', description: 'the IANA time zone the cron fields are read in (default UTC)' },
    'start-at': { type: 'string', value: 'ISO', description: 'no fire before this time, e.g. 2027-01-01T00:00:00Z' },
    'end-at': { type: 'string', value: 'ISO', description: 'no fire after this time' },
    jitter: { type: 'string', value: 'D', description: 'delay each fire by up to D (30s, or seconds)' },
    overlap: { ...OVERLAP_OPTION, description: `${OVERLAP_OPTION.description} (default skip)` },
    'catchup-window': { type: 'string', value: 'D', description: 'fires missed by more than D are dropped (1h, or seconds; at least 10s; default one year)' },
    'pause-on-failure': { type: 'boolean', description: 'a run it started that fails or times out pauses the schedule' },
    paused: { type: 'boolean', description: 'create it paused' },
    note: { type: 'string', value: 'TEXT', description: 'why the schedule is as it is, shown with its state' },
  },
  async run(session, values, [scheduleId], context) {
    const request = await createRequest(scheduleId!, values, context);
    const created = await session.client.schedules.create(request);
    if (session.json) session.printJson(created);
    else session.print(`created: ${created.scheduleId}\n${renderSchedule(created)}`);
    return 0;
  },
});

export const scheduleListCommand = apiCommand({
  name: 'schedule list',
  summary: 'the schedules, by id: workflow, state, next fire, runs started, calendar',
  synopsis: '[--workflow NAME] [--limit N] [--page-token T]',
  description: [
    'Lists schedules by id (GET /schedules) as a table: id, workflow, state, next fire time, runs started and the',
    'calendar. A last line gives the --page-token of the next page when there is one. On Temporal a schedule just',
    'created may show a moment later.',
  ].join('\n'),
  options: {
    workflow: { type: 'string', value: 'NAME', description: "only this workflow's schedules" },
    limit: { type: 'string', value: 'N', description: 'schedules per page, 1 to 1000 (default 100)' },
    'page-token': { type: 'string', value: 'T', description: 'the page after the one that gave this token' },
  },
  async run(session, values) {
    const workflowName = textOption(values.workflow, 'workflow');
    const limit = integerOption(values.limit, 'limit', 1, 1000);
    const pageToken = textOption(values['page-token'], 'page-token');
    const list = await session.client.schedules.list({ ...(workflowName ? { workflowName } : {}), ...(limit ? { limit } : {}), ...(pageToken ? { pageToken } : {}) });
    if (session.json) session.printJson(list);
    else session.print(renderScheduleList(list));
    return 0;
  },
});

export const scheduleDescribeCommand = apiCommand({
  name: 'schedule describe',
  summary: "a schedule: spec, policy, state, counts, next fire times, recent runs",
  synopsis: 'SCHEDULE_ID',
  arguments: SCHEDULE_ID,
  description: [
    'Prints the schedule (GET /schedules/{id}): its workflow, catalog and input; its spec and policy; whether it is',
    'paused and why; the runs it started and the fires it missed; its next fire times; its last actions (fire time,',
    'start, workflow id, run id); when it was created and changed, and by which API key.',
  ].join('\n'),
  options: {},
  async run(session, _values, [scheduleId]) {
    const schedule = await session.client.schedules.get(scheduleId!);
    if (session.json) session.printJson(schedule);
    else session.print(renderSchedule(schedule));
    return 0;
  },
});

const NOTE_OPTION: OptionSpec = { type: 'string', value: 'TEXT', description: 'why, shown with its state' };

export const schedulePauseCommand = apiCommand({
  name: 'schedule pause',
  summary: 'stop the fires of a schedule until it is unpaused',
  synopsis: 'SCHEDULE_ID [--note TEXT]',
  arguments: SCHEDULE_ID,
  description: 'Pauses the schedule (POST /schedules/{id}/pause): no fires while paused; runs it started go on.',
  options: { note: NOTE_OPTION },
  async run(session, values, [scheduleId]) {
    const schedule = await session.client.schedules.pause(scheduleId!, noteOf(values));
    if (session.json) session.printJson(schedule);
    else session.print(`paused: ${schedule.scheduleId}${schedule.note === '' ? '' : ` (note: ${schedule.note})`}`);
    return 0;
  },
});

export const scheduleUnpauseCommand = apiCommand({
  name: 'schedule unpause',
  summary: 'resume the fires of a paused schedule, from now',
  synopsis: 'SCHEDULE_ID [--note TEXT]',
  arguments: SCHEDULE_ID,
  description: 'Unpauses the schedule (POST /schedules/{id}/unpause): fires due while it was paused do not happen.',
  options: { note: NOTE_OPTION },
  async run(session, values, [scheduleId]) {
    const schedule = await session.client.schedules.unpause(scheduleId!, noteOf(values));
    if (session.json) session.printJson(schedule);
    else session.print(`unpaused: ${schedule.scheduleId}; next fire ${schedule.nextFireTimes[0] ?? 'none'}`);
    return 0;
  },
});

export const scheduleTriggerCommand = apiCommand({
  name: 'schedule trigger',
  summary: 'fire a schedule once now, paused or not',
  synopsis: 'SCHEDULE_ID [--overlap P]',
  arguments: SCHEDULE_ID,
  description: [
    "Fires the schedule once now (POST /schedules/{id}/trigger), under its overlap policy or --overlap. The run",
    'shows in `flowgate schedule describe` (recent actions) once it has started.',
  ].join('\n'),
  options: { overlap: { ...OVERLAP_OPTION, description: `${OVERLAP_OPTION.description} (default: the schedule's)` } },
  async run(session, values, [scheduleId]) {
    const overlap = overlapOption(values.overlap);
    const fired = await session.client.schedules.trigger(scheduleId!, overlap === undefined ? {} : { overlap });
    if (session.json) session.printJson(fired);
    else session.print(`triggered: ${fired.scheduleId} (${fires(fired.fires)})`);
    return 0;
  },
});

export const scheduleBackfillCommand = apiCommand({
  name: 'schedule backfill',
  summary: 'fire a schedule once for every fire time of a past range',
  synopsis: 'SCHEDULE_ID --start-at ISO --end-at ISO [--overlap P]',
  arguments: SCHEDULE_ID,
  description: [
    'Fires the schedule once per fire time of its spec from --start-at to --end-at, both included, in order',
    '(POST /schedules/{id}/backfill): the range is in the past and holds at most 1000 fire times.',
  ].join('\n'),
  options: {
    'start-at': { type: 'string', value: 'ISO', description: 'the range\'s first instant, e.g. 2026-01-01T00:00:00Z (required)' },
    'end-at': { type: 'string', value: 'ISO', description: "the range's last instant, not in the future (required)" },
    overlap: { ...OVERLAP_OPTION, description: `${OVERLAP_OPTION.description} (default: the schedule's)` },
  },
  async run(session, values, [scheduleId]) {
    const startAt = timeOption(values['start-at'], 'start-at');
    const endAt = timeOption(values['end-at'], 'end-at');
    if (startAt === undefined || endAt === undefined) throw new UsageError('--start-at ISO and --end-at ISO are required: the range to backfill');
    const overlap = overlapOption(values.overlap);
    const fired = await session.client.schedules.backfill(scheduleId!, { startAt, endAt, ...(overlap === undefined ? {} : { overlap }) });
    if (session.json) session.printJson(fired);
    else session.print(`backfill: ${fired.scheduleId}, ${fires(fired.fires)} from ${startAt} to ${endAt}`);
    return 0;
  },
});

export const scheduleDeleteCommand = apiCommand({
  name: 'schedule delete',
  summary: 'delete a schedule: no more fires; the runs it started stay',
  synopsis: 'SCHEDULE_ID',
  arguments: SCHEDULE_ID,
  description: 'Deletes the schedule (DELETE /schedules/{id}). The API answers 204 with no body: --json prints { "scheduleId", "deleted": true }.',
  options: {},
  async run(session, _values, [scheduleId]) {
    await session.client.schedules.delete(scheduleId!);
    if (session.json) session.printJson({ scheduleId, deleted: true });
    else session.print(`deleted: ${scheduleId}`);
    return 0;
  },
});

export const scheduleCommands: CommandGroup = {
  name: 'schedule',
  summary: 'create, list, describe, pause, unpause, trigger, backfill and delete schedules',
  description: [
    'Schedules start a workflow on cron expressions or an interval, kept and fired by the engine (docs/schedules.md).',
    'Every action calls the API and takes --url, --token, --json and --timeout, as the run commands do.',
  ].join('\n'),
  actions: [
    scheduleCreateCommand,
    scheduleListCommand,
    scheduleDescribeCommand,
    schedulePauseCommand,
    scheduleUnpauseCommand,
    scheduleTriggerCommand,
    scheduleBackfillCommand,
    scheduleDeleteCommand,
  ],
};

/** POST /schedules's body from the options; only what was given, so the server's defaults apply to the rest. */
async function createRequest(scheduleId: string, values: Values, context: CliContext): Promise<CreateScheduleRequest> {
  const workflowName = textOption(values.workflow, 'workflow');
  if (workflowName === undefined) throw new UsageError('--workflow NAME is required: the workflow each fire starts');
  const catalog = textOption(values.catalog, 'catalog');
  const input = await inputOf(values, context);
  const overlap = overlapOption(values.overlap);
  const catchupWindowSeconds = durationOption(values['catchup-window'], 'catchup-window', { whole: true });
  const pauseOnFailure = values['pause-on-failure'] === true ? true : undefined;
  const note = textOption(values.note, 'note');
  const policy = definedOnly({ overlap, catchupWindowSeconds, pauseOnFailure });
  return {
    scheduleId,
    workflowName,
    ...(catalog === undefined ? {} : { catalog }),
    ...(input === undefined ? {} : { input }),
    spec: specOf(values),
    ...(Object.keys(policy).length === 0 ? {} : { policy }),
    ...(values.paused === true ? { paused: true } : {}),
    ...(note === undefined ? {} : { note }),
  };
}

function specOf(values: Values): CreateScheduleRequest['spec'] {
  const cron = values.cron === undefined ? undefined : ([] as string[]).concat(values.cron as string | string[]);
  if (cron?.some((expression) => expression.trim() === '')) throw new UsageError('--cron needs a value: a cron expression such as \'30 2 * * *\'');
  const every = textOption(values.every, 'every');
  const offset = textOption(values.offset, 'offset');
  if (cron === undefined && every === undefined) throw new UsageError("--cron EXPR or --every D is required: when the schedule fires (--cron '30 2 * * *', --every 15m)");
  if (cron !== undefined && every !== undefined) throw new UsageError('give --cron or --every, not both');
  if (offset !== undefined && every === undefined) throw new UsageError('--offset shifts the fires of --every: give --every too');
  return definedOnly({
    ...(cron === undefined ? { every, offset } : { cron: cron.length === 1 ? cron[0] : cron }),
    timezone: textOption(values.timezone, 'timezone'),
    startAt: timeOption(values['start-at'], 'start-at'),
    endAt: timeOption(values['end-at'], 'end-at'),
    jitterSeconds: durationOption(values.jitter, 'jitter', { whole: false }),
  }) as CreateScheduleRequest['spec'];
}

/** `--input JSON|@FILE|-` or `--input-file FILE`; neither: the server's default input. */
async function inputOf(values: Values, context: CliContext): Promise<unknown> {
  const file = textOption(values['input-file'], 'input-file');
  if (file === undefined) return jsonArgument(values.input, 'input', context);
  if (values.input !== undefined) throw new UsageError('give --input or --input-file, not both');
  return jsonFile(file, `--input-file ${file}`);
}

function noteOf(values: Values): { note?: string } {
  const note = textOption(values.note, 'note');
  return note === undefined ? {} : { note };
}

function overlapOption(value: OptionValue): OverlapPolicy | undefined {
  const text = textOption(value, 'overlap');
  if (text === undefined) return undefined;
  if (!(OVERLAP_POLICIES as readonly string[]).includes(text)) throw new UsageError(`--overlap must be one of ${OVERLAP_POLICIES.join(', ')}, got ${JSON.stringify(text)}`);
  return text as OverlapPolicy;
}

const IsoDateTime = z.iso.datetime({ offset: true });

function timeOption(value: OptionValue, name: string): string | undefined {
  const text = textOption(value, name);
  if (text === undefined) return undefined;
  if (!IsoDateTime.safeParse(text).success) throw new UsageError(`--${name} is an ISO 8601 date and time, e.g. 2027-01-31T00:00:00Z, got ${JSON.stringify(text)}`);
  return text;
}

/** `90`, `1m30s`, `1h`, `1d` as seconds; `whole: false` also takes a fraction of plain seconds (`2.5`). */
export function durationOption(value: OptionValue, name: string, { whole }: { whole: boolean }): number | undefined {
  const text = textOption(value, name);
  if (text === undefined) return undefined;
  if (whole ? /^\d+$/.test(text) : /^\d+(\.\d+)?$/.test(text)) return Number(text);
  const ms = parseDuration(text);
  if (ms === undefined) {
    throw new UsageError(`--${name} must be a duration such as 30s, 15m, 1h30m, 1d, or a ${whole ? 'whole ' : ''}number of seconds, got ${JSON.stringify(text)}`);
  }
  return ms / 1000;
}

function fires(count: number): string {
  return count === 1 ? '1 fire' : `${count} fires`;
}

/** The object without its undefined fields (the request types do not take `undefined` for an absent field). */
function definedOnly<T extends Record<string, unknown>>(object: T): { [K in keyof T]?: Exclude<T[K], undefined> } {
  return Object.fromEntries(Object.entries(object).filter(([, value]) => value !== undefined)) as { [K in keyof T]?: Exclude<T[K], undefined> };
}
