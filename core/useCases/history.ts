import type { HistoryPageRequest, HistoryStreamRequest } from '../api/requests.js';
import type { HistoryPageView, HistoryStreamItem } from '../api/views.js';
import { formatStreamPosition } from '../domain/progress.js';
import type { RunRef } from '../domain/run.js';
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
  const { run, page } = await sharedHistoryPages(deps.engine).read(ref, request);
  return { workflow: toStatusView(run), events: page.events, nextPageToken: page.nextPageToken };
}

/**
 * The run's metadata, every event after `lastEventId` as it happens with the progress of running steps in
 * between, and a final `done` with the closing status. The run is looked up before the stream is returned, so an
 * unknown id is still an ordinary 404.
 */
export async function historyStream(
  deps: Pick<CoreDeps, 'engine'>,
  ref: RunRef,
  request: HistoryStreamRequest,
): Promise<AsyncIterable<HistoryStreamItem>> {
  const run = await deps.engine.describe(ref);
  const pinned = { workflowId: run.workflowId, runId: run.runId };
  const { engine } = deps;
  return (async function* stream(): AsyncGenerator<HistoryStreamItem> {
    yield { event: 'workflow', data: toStatusView(run) };
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
    if (request.signal.aborted) return;
    const closed = await engine.describe(pinned);
    yield { event: 'done', data: { status: closed.status } };
  })();
}
