import { MAX_RUN_LIST_LIMIT } from '../../../core/domain/requestBounds.js';
import { renderKeyDescription } from '../render/keys.js';
import { textOption } from '../command.js';
import { renderHistoryPage, renderRunList, renderStatus, renderWorkflowList } from '../render/runs.js';
import { prettyJson } from '../render/text.js';
import { renderTraceTimeline } from '../render/trace.js';
import { apiCommand, integerOption, RUN_OPTION, runIdOf } from './api.js';

export const statusCommand = apiCommand({
  name: 'status',
  summary: "a run's status: workflow, catalog, status, start, close, duration",
  synopsis: 'WORKFLOW_ID [--run RID]',
  arguments: ['WORKFLOW_ID'],
  description: 'Prints the status of the latest run of WORKFLOW_ID, or of --run RID (GET .../status).',
  options: { run: RUN_OPTION },
  async run(session, values, [workflowId]) {
    const runId = textOption(values.run, 'run');
    const view = await session.client.status(workflowId!, runId ? { runId } : {});
    if (session.json) session.printJson(view);
    else session.print(renderStatus(view));
    return 0;
  },
});

export const inputCommand = apiCommand({
  name: 'input',
  summary: 'the input a run was started with',
  synopsis: 'WORKFLOW_ID [--run RID]',
  arguments: ['WORKFLOW_ID'],
  description: 'Prints the input of the latest run of WORKFLOW_ID, or of --run RID, as indented JSON (GET .../input).',
  options: { run: RUN_OPTION },
  async run(session, values, [workflowId]) {
    const runId = textOption(values.run, 'run');
    const view = await session.client.input(workflowId!, runId ? { runId } : {});
    if (session.json) session.printJson(view);
    else session.print(prettyJson(view.input));
    return 0;
  },
});

export const listCommand = apiCommand({
  name: 'list',
  summary: 'the workflows of a catalog, with their descriptions',
  synopsis: '[--catalog C]',
  description: 'Lists the workflows a catalog serves (GET /workflow/list); --json has their input and output JSON Schemas.',
  options: { catalog: { type: 'string', value: 'C', description: "the catalog (default: the server's)" } },
  async run(session, values) {
    const catalog = textOption(values.catalog, 'catalog');
    const list = await session.client.listWorkflows(catalog ? { catalog } : {});
    if (session.json) session.printJson(list);
    else session.print(renderWorkflowList(list));
    return 0;
  },
});

export const runsCommand = apiCommand({
  name: 'runs',
  summary: 'runs, newest first, filtered by workflow, catalog, status, starter and schedule',
  synopsis: '[--workflow NAME] [--catalog C] [--status S] [--started-by KEY] [--schedule ID] [--limit N] [--page-token T]',
  description: [
    'Lists runs newest first (GET /workflow/runs) as a table: workflow id, run id, workflow, status, start, duration.',
    'A last line gives the --page-token of the next page when there is one.',
  ].join('\n'),
  options: {
    workflow: { type: 'string', value: 'NAME', description: "only this workflow's runs" },
    catalog: { type: 'string', value: 'C', description: "only this catalog's runs" },
    status: { type: 'string', value: 'S', description: 'only runs in this status: running, completed, failed, cancelled, terminated, timed_out, continued_as_new' },
    'started-by': { type: 'string', value: 'KEY', description: 'only runs started with this API key (its id)' },
    schedule: { type: 'string', value: 'ID', description: 'only runs this schedule started' },
    limit: { type: 'string', value: 'N', description: `runs per page, 1 to ${MAX_RUN_LIST_LIMIT} (default 100)` },
    'page-token': { type: 'string', value: 'T', description: 'the page after the one that gave this token' },
  },
  async run(session, values) {
    const query = {
      workflowName: textOption(values.workflow, 'workflow'),
      catalog: textOption(values.catalog, 'catalog'),
      status: textOption(values.status, 'status'),
      startedBy: textOption(values['started-by'], 'started-by'),
      scheduleId: textOption(values.schedule, 'schedule'),
      limit: integerOption(values.limit, 'limit', 1, MAX_RUN_LIST_LIMIT),
      pageToken: textOption(values['page-token'], 'page-token'),
    };
    const list = await session.client.listRuns(Object.fromEntries(Object.entries(query).filter(([, value]) => value !== undefined)));
    if (session.json) session.printJson(list);
    else session.print(renderRunList(list));
    return 0;
  },
});

export const historyCommand = apiCommand({
  name: 'history',
  summary: "a page of a run's history events",
  synopsis: 'WORKFLOW_ID [--run RID] [--page-size N] [--page-token T]',
  arguments: ['WORKFLOW_ID'],
  description: [
    'Prints one page of the history of the latest run of WORKFLOW_ID, or of --run RID (GET .../history): an event a',
    'line with its id, time, type, step and what its attributes say. `flowgate follow` streams it live instead.',
  ].join('\n'),
  options: {
    run: RUN_OPTION,
    'page-size': { type: 'string', value: 'N', description: 'events per page, 1 to 200 (default 50)' },
    'page-token': { type: 'string', value: 'T', description: 'the page after the one that gave this token' },
  },
  async run(session, values, [workflowId]) {
    const runId = textOption(values.run, 'run');
    const pageSize = integerOption(values['page-size'], 'page-size', 1, 200);
    const pageToken = textOption(values['page-token'], 'page-token');
    const page = await session.client.history(workflowId!, { ...(runId ? { runId } : {}), ...(pageSize ? { pageSize } : {}), ...(pageToken ? { pageToken } : {}) });
    if (session.json) session.printJson(page);
    else session.print(renderHistoryPage(page));
    return 0;
  },
});

export const traceCommand = apiCommand({
  name: 'trace',
  summary: "a closed run's steps as a timeline: durations, cost, tokens, HTTP calls",
  synopsis: 'WORKFLOW_ID [--run RID]',
  arguments: ['WORKFLOW_ID'],
  description: [
    'Prints the trace of a closed run (GET .../trace-log) as a timeline: a line per step with a bar placed on the',
    "run's duration, the step's duration, attempt, state, cost, tokens and HTTP calls, and their totals.",
  ].join('\n'),
  options: { run: RUN_OPTION },
  async run(session, values, [workflowId]) {
    const runId = await runIdOf(session, workflowId!, values);
    const log = await session.client.traceLog(workflowId!, runId);
    if (session.json) session.printJson(log);
    else session.print(renderTraceTimeline(log));
    return 0;
  },
});

export const whoamiCommand = apiCommand({
  name: 'whoami',
  summary: 'the API key in use: its id, scopes, limits, and what it may do',
  synopsis: '',
  description: [
    'Asks the server what the key given with --token (or FLOWGATE_TOKEN) may do (GET /auth/key): its id, scopes,',
    'catalog and workflow limits and expiry, never its secret. With authentication off it says so.',
  ].join('\n'),
  options: {},
  async run(session) {
    const description = await session.client.describeKey();
    if (session.json) session.printJson(description);
    else session.print(renderKeyDescription(description));
    return 0;
  },
});
