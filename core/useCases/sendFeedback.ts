import type { WorkflowEngine } from '../../ports/engine.js';
import { WorkflowClosedError } from '../domain/errors.js';
import type { HistoryEvent } from '../domain/history.js';
import type { RequestIdempotency } from '../domain/idempotency.js';
import type { PinnedRunRef } from '../domain/run.js';
import { isTerminal } from '../domain/status.js';
import type { RunRefView } from '../api/views.js';
import { validateFeedbackPayload } from '../validation/inputValidator.js';
import type { CoreDeps } from './deps.js';

/** How long a refused reply waits for a closing run's close to show, to say how it ended. */
const CLOSE_SHOWS_WITHIN_MS = 2_000;
/** History pages read to find the reply the run took; a run that waits for replies has a short history. */
const REPLY_SEARCH_PAGES = 5;
const REPLY_SEARCH_PAGE_SIZE = 200;

/**
 * Delivers a webhook reply to the latest run of `workflowId`; the engine buffers it when the run has not reached its
 * wait yet. A reply its workflow's published feedback schema refuses is a ValidationError and is not delivered: the run
 * never sees it and keeps waiting.
 */
export async function sendFeedback(
  deps: Pick<CoreDeps, 'engine' | 'actor'>,
  workflowId: string,
  payload: unknown,
  idempotency?: RequestIdempotency,
): Promise<RunRefView> {
  await checkFeedback(deps, workflowId, payload);
  try {
    const run = await deps.engine.deliverFeedback(workflowId, payload, idempotency, deps.actor);
    return { workflowId: run.workflowId, runId: run.runId };
  } catch (error) {
    if (!(error instanceof WorkflowClosedError) || error.runId === undefined) throw error;
    throw await refusedReply(deps.engine, { workflowId: error.workflowId ?? workflowId, runId: error.runId }, error);
  }
}

/**
 * The 409 of a reply that reached a run whose close was already decided, saying what happened: how the run ended,
 * and the reply it took (of two replies sent at once to a run waiting for one, the second can find it closing).
 */
async function refusedReply(engine: WorkflowEngine, run: PinnedRunRef, refusal: Error): Promise<Error> {
  try {
    const outcome = await engine.awaitOutcome(run, { timeoutMs: CLOSE_SHOWS_WITHIN_MS, followChain: false });
    const status = outcome?.run.status ?? (await engine.describe(run)).status;
    const reply = await lastReplyTaken(engine, run);
    const taken = reply ? `: it had already taken a reply (history event ${reply.eventId}, ${reply.time})` : '';
    const end = isTerminal(status) ? `has closed (${status})` : 'is closing';
    return new WorkflowClosedError(`Workflow ${run.workflowId} run ${run.runId} takes no more feedback${taken} and ${end}`, {
      workflowId: run.workflowId,
      runId: run.runId,
      cause: refusal,
    });
  } catch {
    // The engine could not say more now: the refusal stands as the engine made it.
    return refusal;
  }
}

async function lastReplyTaken(engine: WorkflowEngine, run: PinnedRunRef): Promise<HistoryEvent | undefined> {
  let reply: HistoryEvent | undefined;
  let pageToken: string | undefined;
  for (let page = 0; page < REPLY_SEARCH_PAGES; page++) {
    const { page: events } = await engine.historyPage(run, pageToken === undefined ? { pageSize: REPLY_SEARCH_PAGE_SIZE } : { pageSize: REPLY_SEARCH_PAGE_SIZE, pageToken });
    for (const event of events.events) if (event.type === 'signal_received' && event.attributes.signalName === 'feedback') reply = event;
    if (events.nextPageToken === null) return reply;
    pageToken = events.nextPageToken;
  }
  return reply;
}

/**
 * The check is made in the API process, from the catalog the run's workflow is published in (on Temporal the API runs
 * no workflow code). A closed run is left to the engine, which refuses it (409) or answers a retried keyed request.
 */
async function checkFeedback(deps: Pick<CoreDeps, 'engine'>, workflowId: string, payload: unknown): Promise<void> {
  const run = await deps.engine.describe({ workflowId });
  if (run.status !== 'running') return;
  const catalog = await deps.engine.describeCatalog(run.catalog);
  const type = catalog?.workflows.find((workflow) => workflow.name === run.workflowName);
  if (type?.feedbackSchema !== undefined) validateFeedbackPayload(type.name, type.feedbackSchema, payload);
}
