import { isClosingEventType, type HistoryPage } from '../domain/history.js';
import type { RunDescription, RunRef } from '../domain/run.js';
import type { HistoryPageQuery, WorkflowEngine } from '../../ports/engine.js';

/** A history page as the engine answers it. */
export interface EngineHistoryPage {
  run: RunDescription;
  page: HistoryPage;
}

/**
 * Concurrent readers of one history page share one decoded page: thirty clients asking for the same 12 MB page each
 * had the engine decode it again, and each kept its copy until its client had read the last byte. Identical requests
 * in flight share one engine read; a page of a closed run, which never changes, is kept (weakly) while anyone still
 * holds it (an answer being sent as its client reads it) and handed to the next reader of it without asking the
 * engine. A page of an open run is shared only while it is being read: its run's status, and its last page, change.
 * Readers must not change a page (nothing does: it is serialised into answers).
 */
export class SharedHistoryPages {
  private readonly reading = new Map<string, Promise<EngineHistoryPage>>();
  private readonly held = new Map<string, WeakRef<EngineHistoryPage>>();
  /** How many pages are held per workflow: only then is a latest-run request pinned first (one describe) to look. */
  private readonly heldPerWorkflow = new Map<string, number>();
  private readonly forget = new FinalizationRegistry<{ key: string; workflowId: string }>(({ key, workflowId }) => {
    if (this.held.get(key)?.deref() !== undefined || !this.held.delete(key)) return;
    const count = this.heldPerWorkflow.get(workflowId)! - 1;
    if (count === 0) this.heldPerWorkflow.delete(workflowId);
    else this.heldPerWorkflow.set(workflowId, count);
  });

  constructor(private readonly engine: WorkflowEngine) {}

  async read(ref: RunRef, query: HistoryPageQuery): Promise<EngineHistoryPage> {
    // A request for the latest run is pinned only when a page of the workflow is held: otherwise nothing to find.
    const runId = ref.runId ?? (this.heldPerWorkflow.has(ref.workflowId) ? (await this.engine.describe(ref)).runId : undefined);
    if (runId !== undefined) {
      const held = this.held.get(pageKey(ref.workflowId, runId, query))?.deref();
      if (held) return held;
    }
    const requested = pageKey(ref.workflowId, ref.runId ?? '', query);
    let pending = this.reading.get(requested);
    if (!pending) {
      pending = this.engine.historyPage(ref, query).then((read) => {
        if (isFinal(read)) this.hold(read, query);
        return read;
      });
      this.reading.set(requested, pending);
      const done = () => this.reading.delete(requested);
      pending.then(done, done);
    }
    return pending;
  }

  private hold(read: EngineHistoryPage, query: HistoryPageQuery): void {
    const { workflowId, runId } = read.run;
    const key = pageKey(workflowId, runId, query);
    if (!this.held.has(key)) this.heldPerWorkflow.set(workflowId, (this.heldPerWorkflow.get(workflowId) ?? 0) + 1);
    this.held.set(key, new WeakRef(read));
    this.forget.register(read, { key, workflowId });
  }
}

/** Whether a page will never read differently: its run is closed, and the page is not its history's open end. */
function isFinal({ run, page }: EngineHistoryPage): boolean {
  if (run.status === 'running') return false;
  // A closed run's last page ends with its closing event once the engine shows it (the durable store shows an event
  // once committed, which may be just after the run's status changed).
  return page.nextPageToken !== null || isClosingEventType(page.events.at(-1)?.type ?? '');
}

function pageKey(workflowId: string, runId: string, query: HistoryPageQuery): string {
  return JSON.stringify([workflowId, runId, query.pageSize, query.pageToken ?? null]);
}

const sharedByEngine = new WeakMap<WorkflowEngine, SharedHistoryPages>();

/** The shared pages of one engine: every API on that engine shares them. */
export function sharedHistoryPages(engine: WorkflowEngine): SharedHistoryPages {
  let pages = sharedByEngine.get(engine);
  if (!pages) {
    pages = new SharedHistoryPages(engine);
    sharedByEngine.set(engine, pages);
  }
  return pages;
}
