import type { HistoryEvent } from '../../core/domain/history.js';
import type { RunStreamItem } from '../../ports/engine.js';

/** The history events of a followed run (WorkflowEngine.followRun), its progress left out, as they come. */
export async function* historyEventsOf(stream: AsyncIterable<RunStreamItem>): AsyncGenerator<HistoryEvent> {
  for await (const item of stream) if (item.kind === 'history') yield item.event;
}
