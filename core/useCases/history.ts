import type { HistoryPageRequest, HistoryStreamRequest } from '../api/requests.js';
import type { HistoryPageView, HistoryStreamItem } from '../api/views.js';
import type { RunRef } from '../domain/run.js';
import { toStatusView } from '../results/statusView.js';
import type { CoreDeps } from './deps.js';

export async function historyPage(
  deps: Pick<CoreDeps, 'engine'>,
  ref: RunRef,
  request: HistoryPageRequest,
): Promise<HistoryPageView> {
  const { run, page } = await deps.engine.historyPage(ref, request);
  return { workflow: toStatusView(run), events: page.events, nextPageToken: page.nextPageToken };
}

/**
 * The run's metadata, every event after `lastEventId` as it happens, and a final `done` with the closing status.
 * The run is looked up before the stream is returned, so an unknown id is still an ordinary 404.
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
    for await (const event of engine.followHistory(pinned, request.lastEventId ?? 0, request.signal)) {
      yield { event: 'history', id: event.eventId, data: event };
    }
    if (request.signal.aborted) return;
    const closed = await engine.describe(pinned);
    yield { event: 'done', data: { status: closed.status } };
  })();
}
