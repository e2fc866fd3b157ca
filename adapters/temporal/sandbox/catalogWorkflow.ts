import { allHandlersFinished, condition, defineSignal, makeContinueAsNewFunc, setHandler, upsertMemo, workflowInfo } from '@temporalio/workflow';
import { CATALOG_MEMO_KEY, CATALOG_PUBLISH_SIGNAL, CATALOG_WORKER_OFFLINE_SIGNAL, type CatalogMemo, type CatalogPublication } from '../protocol.js';
import { catalogAfterOffline, catalogAfterPublication, sameCatalog } from './catalogMemo.js';

/** Keeps the history short: a fresh run, carrying the memo, after this many signals. */
const SIGNALS_BEFORE_CONTINUE_AS_NEW = 500;

const publishSignal = defineSignal<[CatalogPublication]>(CATALOG_PUBLISH_SIGNAL);
/** Its argument is `{ workerIdentity }` (a bare identity string is accepted too). */
const workerOfflineSignal = defineSignal<[{ workerIdentity: string } | string]>(CATALOG_WORKER_OFFLINE_SIGNAL);

/**
 * The catalog registry workflow (type CATALOG_WORKFLOW_TYPE, one per catalog = task queue). Its state lives in its
 * memo, so the API reads a catalog with DescribeWorkflowExecution and never needs a worker to answer a query; the
 * schemas never enter its arguments or history events other than the memo upserts.
 */
export async function catalogWorkflow(): Promise<void> {
  const info = workflowInfo();
  let memo: CatalogMemo = (info.memo?.[CATALOG_MEMO_KEY] as CatalogMemo | undefined) ?? {
    catalog: info.taskQueue,
    workflows: [],
    onlineWorkers: [],
    publishedAt: new Date().toISOString(),
  };
  let signals = 0;
  const update = (next: CatalogMemo): void => {
    signals += 1;
    if (sameCatalog(next, memo)) return;
    memo = next;
    upsertMemo({ [CATALOG_MEMO_KEY]: memo });
  };
  setHandler(publishSignal, (publication) => update(catalogAfterPublication(memo, publication, new Date().toISOString())));
  setHandler(workerOfflineSignal, (worker) => update(catalogAfterOffline(memo, typeof worker === 'string' ? worker : worker?.workerIdentity)));

  await condition(() => signals >= SIGNALS_BEFORE_CONTINUE_AS_NEW);
  await condition(allHandlersFinished);
  await makeContinueAsNewFunc<typeof catalogWorkflow>({ memo: { [CATALOG_MEMO_KEY]: memo } })();
}
