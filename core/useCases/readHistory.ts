import type { HistoryPageRequest, HistoryStreamRequest } from '../api/requests.js';
import type { HistoryPageView, HistoryStreamItem } from '../api/views.js';
import type { WorkflowEngine } from '../../ports/engine.js';
import { formatStreamPosition } from '../domain/progress.js';
import { checkHistoryPageSize } from '../domain/requestBounds.js';
import type { PinnedRunRef, RunDescription, RunRef } from '../domain/run.js';
import { isTerminal } from '../domain/status.js';
import { toStatusView } from '../results/statusView.js';
import type { CoreDeps } from './deps.js';
import { sharedHistoryPages } from './sharedHistoryPages.js';

/**
 * One page of a run's history: at most `pageSize` events and about HISTORY_PAGE_MAX_BYTES of them. Concurrent readers
 * of one page share it (sharedHistoryPages.ts): treat it as read-only.
 */
export async function historyPage(
  deps: Pick<CoreDeps, 'engine'>,
  ref: RunRef,
  request: HistoryPageRequest,
): Promise<HistoryPageView> {
  checkHistoryPageSize(request.pageSize);
  const { run, page } = await sharedHistoryPages(deps.engine).read(ref, request);
  return { workflow: toStatusView(run), events: page.events, nextPageToken: page.nextPageToken };
}

type FollowedItem = Extract<HistoryStreamItem, { event: 'history' | 'progress' }>;

/**
 * The run's metadata, every event after `lastEventId` as it happens with the progress of running steps in
 * between, and a final `done` with the closing status. The run is looked up before the stream is returned, so an
 * unknown id is still an ordinary 404.
 *
 * A client resuming a closed run after its last event already has all of it: the stream is then empty (no
 * `workflow`, no `done`), so that a transport can tell it to stop instead of repeating the end for ever (a standard
 * EventSource reconnects whenever a response ends).
 */
export async function historyStream(
  deps: Pick<CoreDeps, 'engine'>,
  ref: RunRef,
  request: HistoryStreamRequest,
): Promise<AsyncIterable<HistoryStreamItem>> {
  const run = await deps.engine.describe(ref);
  const pinned = { workflowId: run.workflowId, runId: run.runId };
  const followed = followedItems(deps.engine, pinned, request);
  const latestRunUrl = ref.runId === undefined;
  if (request.lastEventId === undefined || !isTerminal(run.status)) return framed(deps.engine, run, followed, request.signal, latestRunUrl);
  // A closed run's follow ends at once: looking ahead for one item costs no wait.
  const first = await followed.next();
  if (first.done) return emptyStream();
  return framed(deps.engine, run, prepended(first.value, followed), request.signal, latestRunUrl);
}

async function* framed(
  engine: WorkflowEngine,
  run: RunDescription,
  followed: AsyncGenerator<FollowedItem>,
  signal: AbortSignal,
  latestRunUrl: boolean,
): AsyncGenerator<HistoryStreamItem> {
  try {
    yield { event: 'workflow', data: toStatusView(run) };
    yield* followed;
  } finally {
    // Left before reaching `followed` (the reader stopped after `workflow`): a follow already begun is ended too.
    await followed.return(undefined);
  }
  if (signal.aborted) return;
  // On the latest-run URL one description says both: the run that URL reads now, and (when it is still this one) how
  // this run closed.
  const latest = latestRunUrl ? await latestRunOf(engine, run.workflowId) : undefined;
  const closed = latest?.runId === run.runId ? latest : await engine.describe({ workflowId: run.workflowId, runId: run.runId });
  const movedOn = latestRunUrl && latest?.runId !== run.runId;
  yield { event: 'done', data: { status: closed.status }, ...(movedOn ? { id: '' as const } : {}) };
}

/**
 * The run the latest-run URL reads now: another than the one streamed once the run continued as new, was reset, or
 * the id was started again. Undefined when it cannot be told; the id is then cleared too: events sent again rather
 * than events lost.
 */
async function latestRunOf(engine: WorkflowEngine, workflowId: string): Promise<RunDescription | undefined> {
  try {
    return await engine.describe({ workflowId });
  } catch {
    return undefined;
  }
}

/** History events after `lastEventId` and progress the client has not had yet, until the run's closing event. */
async function* followedItems(engine: WorkflowEngine, pinned: PinnedRunRef, request: HistoryStreamRequest): AsyncGenerator<FollowedItem> {
  let lastEventId = request.lastEventId ?? 0;
  // The last seq sent per step: engines may hand the same progress again (a heartbeat read twice).
  const sent = new Map(request.progressReceived ?? []);
  for await (const item of engine.followRun(pinned, lastEventId, request.signal)) {
    if (item.kind === 'history') {
      lastEventId = item.event.eventId;
      yield { event: 'history', id: item.event.eventId, data: item.event };
      continue;
    }
    const { progress, runningSteps } = item;
    if (progress.seq <= (sent.get(progress.stepEventId) ?? 0)) continue;
    sent.set(progress.stepEventId, progress.seq);
    for (const step of sent.keys()) if (!runningSteps.includes(step)) sent.delete(step);
    yield { event: 'progress', id: formatStreamPosition({ lastEventId, progress: sent }), data: progress };
  }
}

async function* prepended<T>(first: T, rest: AsyncGenerator<T>): AsyncGenerator<T> {
  try {
    yield first;
    yield* rest;
  } finally {
    await rest.return(undefined);
  }
}

async function* emptyStream(): AsyncGenerator<HistoryStreamItem> {}
