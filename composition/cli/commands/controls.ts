import { textOption, UsageError } from '../command.js';
import { apiCommand, jsonArgument, RUN_OPTION, runIdOf } from './api.js';

/*
 * The commands that change a run. Without --run each acts on the latest run of the workflow id, named first from
 * its status, so the run acted on is the one printed (and the deprecated latest-run endpoints are not used).
 */

export const stopCommand = apiCommand({
  name: 'stop',
  summary: 'cancel a run: its clean-up code may run',
  synopsis: 'WORKFLOW_ID [--run RID]',
  arguments: ['WORKFLOW_ID'],
  description: 'Requests cancellation of the run (PATCH .../runs/{rid}/stop): pending waits throw CancelledError, clean-up may run.',
  options: { run: RUN_OPTION },
  async run(session, values, [workflowId]) {
    const runId = await runIdOf(session, workflowId!, values);
    const answer = await session.client.stop(workflowId!, { runId });
    if (session.json) session.printJson(answer);
    else session.print(`cancellation requested: ${answer.workflowId} run ${answer.runId}`);
    return 0;
  },
});

export const terminateCommand = apiCommand({
  name: 'terminate',
  summary: 'end a run at once, without clean-up',
  synopsis: 'WORKFLOW_ID [--run RID] [--reason R]',
  arguments: ['WORKFLOW_ID'],
  description: 'Terminates the run (POST .../runs/{rid}/terminate): it ends now, no workflow code runs any more.',
  options: { run: RUN_OPTION, reason: { type: 'string', value: 'R', description: 'why, recorded in the history' } },
  async run(session, values, [workflowId]) {
    const runId = await runIdOf(session, workflowId!, values);
    const reason = textOption(values.reason, 'reason');
    const answer = await session.client.terminate(workflowId!, runId, reason === undefined ? {} : { reason });
    if (session.json) session.printJson(answer);
    else session.print(`terminated: ${answer.workflowId} run ${answer.runId}`);
    return 0;
  },
});

export const resetCommand = apiCommand({
  name: 'reset',
  summary: 'a new run that replays a run up to a step and runs the rest again',
  synopsis: 'WORKFLOW_ID --step NAME [--run RID] [--reason R]',
  arguments: ['WORKFLOW_ID'],
  description: [
    'Starts a NEW run of WORKFLOW_ID that replays everything the run completed up to the last completion of step',
    'NAME and runs the rest (POST .../runs/{rid}/reset); an open latest run is terminated. Prints the new run id.',
  ].join('\n'),
  options: {
    step: { type: 'string', value: 'NAME', description: 'the step to reset to (required)' },
    run: RUN_OPTION,
    reason: { type: 'string', value: 'R', description: 'why, recorded in the history' },
  },
  async run(session, values, [workflowId]) {
    const stepName = textOption(values.step, 'step');
    if (stepName === undefined) throw new UsageError('--step NAME is required: the step to reset to');
    const reason = textOption(values.reason, 'reason');
    const runId = await runIdOf(session, workflowId!, values);
    const answer = await session.client.reset(workflowId!, { stepName, ...(reason === undefined ? {} : { reason }) }, { runId });
    if (session.json) session.printJson(answer);
    else session.print(`reset to after ${stepName}: ${answer.workflowId} new run ${answer.runId}`);
    return 0;
  },
});

export const feedbackCommand = apiCommand({
  name: 'feedback',
  summary: 'resume the run of a workflow id that waits on a webhook',
  synopsis: 'WORKFLOW_ID --payload JSON|@FILE|-',
  arguments: ['WORKFLOW_ID'],
  description: 'Delivers the payload (a JSON object) to the latest run of WORKFLOW_ID waiting on a webhook (POST /workflow/feedback).',
  options: {
    payload: { type: 'string', short: 'p', value: 'JSON', description: 'the payload: a JSON object, @FILE for a file of it, - for standard input (required)' },
  },
  async run(session, values, [workflowId], context) {
    const payload = await jsonArgument(values.payload, 'payload', context);
    if (payload === undefined) throw new UsageError('--payload is required: a JSON object, @FILE or -');
    if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) throw new UsageError('--payload must be a JSON object');
    const answer = await session.client.sendFeedback(workflowId!, payload as Record<string, unknown>);
    if (session.json) session.printJson(answer);
    else session.print(`delivered: ${answer.workflowId} run ${answer.runId}`);
    return 0;
  },
});

export const rerunCommand = apiCommand({
  name: 'rerun',
  summary: 'a new run of the same workflow with the same input as a run',
  synopsis: 'WORKFLOW_ID [--run RID] [--new-id WID]',
  arguments: ['WORKFLOW_ID'],
  description: [
    "Starts a new run of the run's workflow with its input, checked against what the catalog publishes now",
    '(POST .../runs/{rid}/rerun). Prints the new workflow id and run id, as `flowgate start` does.',
  ].join('\n'),
  options: {
    run: RUN_OPTION,
    'new-id': { type: 'string', value: 'WID', description: "the new run's workflow id (default: a new UUID; an open run's own id is refused)" },
  },
  async run(session, values, [workflowId]) {
    const runId = await runIdOf(session, workflowId!, values);
    const newWorkflowId = textOption(values['new-id'], 'new-id');
    const answer = await session.client.rerun(workflowId!, runId, newWorkflowId === undefined ? {} : { newWorkflowId });
    if (session.json) session.printJson(answer);
    else session.print(`${answer.workflowId} ${answer.runId}`);
    return 0;
  },
});
