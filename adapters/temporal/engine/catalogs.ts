import type { CatalogDescription } from '../../../core/domain/catalog.js';
import { WorkflowNotFoundError } from '../../../core/domain/errors.js';
import type { Clock } from '../../../ports/clock.js';
import type { Logger } from '../../../ports/logger.js';
import { CATALOG_WORKFLOW_TYPE, catalogWorkflowId } from '../protocol.js';
import type { TemporalCalls } from './calls.js';
import { catalogMemoOf, runTimeoutsOf, StableWorkflowTypes, typeInfoOf } from './catalogMemo.js';
import { queryLiteral } from './listRuns.js';
import { enums } from './proto.js';
import { runStatusOf } from './status.js';
import { toMillis } from './values.js';

export interface CatalogReaderOptions {
  calls: TemporalCalls;
  clock: Clock;
  logger: Logger;
  cacheMs: number;
  workerLivenessMs: number;
}

const LIST_PAGE_SIZE = 1000;
/**
 * Catalog descriptions kept at most: every start reads its catalog, and a catalog name that is not deployed (a typo, a
 * client trying names) would otherwise hold an entry for the life of the process, one per name ever asked for.
 */
const MAX_CACHED_CATALOGS = 1000;
/** At most this many catalogs are searched by catalogsWithWorkflow (it only words an error message). */
const MAX_LIST_PAGES = 5;

/**
 * Catalogs from the registry workflows' memos (read with DescribeWorkflowExecution: no worker has to answer), their
 * availability from the task queue's pollers. Each description is reused for `cacheMs`, and concurrent readers of
 * the same catalog share one request: every start reads its catalog.
 */
export class CatalogReader {
  /** In the order they were read, which is the order they expire in (all live for cacheMs). */
  private readonly cache = new Map<string, CachedCatalog>();
  private readonly types = new StableWorkflowTypes();

  constructor(private readonly options: CatalogReaderOptions) {}

  describe(catalog: string): Promise<CatalogDescription | undefined> {
    return this.entryOf(catalog).description;
  }

  /** The run time limit `workflowName` publishes in `catalog`; undefined when it has none (or is unknown). */
  async runTimeoutMs(catalog: string, workflowName: string): Promise<number | undefined> {
    const entry = this.entryOf(catalog);
    await entry.description;
    return entry.runTimeouts.get(workflowName);
  }

  private entryOf(catalog: string): CachedCatalog {
    const now = this.options.clock.now();
    const cached = this.cache.get(catalog);
    if (cached && cached.expiresAt > now) return cached;
    const entry = new CachedCatalog(now + this.options.cacheMs);
    entry.description = this.read(catalog, entry);
    this.cache.delete(catalog);
    this.cache.set(catalog, entry);
    // The oldest first: expired ones, or, with more names asked for within cacheMs, the least recently read.
    for (const name of this.cache.keys()) {
      if (this.cache.size <= MAX_CACHED_CATALOGS) break;
      this.cache.delete(name);
    }
    // A failed read is not remembered: the next caller asks Temporal again.
    entry.description.catch(() => {
      if (this.cache.get(catalog) === entry) this.cache.delete(catalog);
    });
    return entry;
  }

  /** Names of the running catalogs that publish `workflowName`, sorted. */
  async catalogsWith(workflowName: string): Promise<string[]> {
    const { calls } = this.options;
    const query = `WorkflowType = ${queryLiteral(CATALOG_WORKFLOW_TYPE)} AND ExecutionStatus = 'Running'`;
    const names = new Set<string>();
    let nextPageToken: Uint8Array | undefined;
    for (let page = 0; page < MAX_LIST_PAGES; page += 1) {
      const response = await calls.call(() =>
        calls.service.listWorkflowExecutions({ namespace: calls.namespace, query, pageSize: LIST_PAGE_SIZE, ...(nextPageToken ? { nextPageToken } : {}) }),
      );
      for (const execution of response.executions ?? []) {
        const memo = catalogMemoOf((await calls.resolvePayloads(execution.memo))?.fields);
        if (memo?.workflows.some((workflow) => workflow.name === workflowName)) names.add(memo.catalog);
      }
      nextPageToken = response.nextPageToken?.length ? response.nextPageToken : undefined;
      if (!nextPageToken) break;
    }
    return [...names].sort();
  }

  private async read(catalog: string, entry: CachedCatalog): Promise<CatalogDescription | undefined> {
    const { calls, logger } = this.options;
    const workflowId = catalogWorkflowId(catalog);
    let info;
    try {
      const response = await calls.call(() => calls.service.describeWorkflowExecution({ namespace: calls.namespace, execution: { workflowId } }), {
        workflowId,
      });
      info = response.workflowExecutionInfo;
      // A large catalog (JSON Schemas) may have had its memo offloaded by the worker's claim-check codec.
      if (info) await calls.resolvePayloads(info.memo);
    } catch (error) {
      if (!(error instanceof WorkflowNotFoundError)) throw error;
      info = undefined;
    }
    // An execution of another type under the registry's id is not a catalog (start() reserves the prefix).
    const memo = info?.type?.name === CATALOG_WORKFLOW_TYPE ? catalogMemoOf(info.memo?.fields) : undefined;
    entry.runTimeouts = runTimeoutsOf(memo?.workflows ?? []);
    if (!info || info.type?.name !== CATALOG_WORKFLOW_TYPE) return undefined;
    if (!memo) {
      logger.warn('catalog registry workflow has no readable catalog memo; treating the catalog as empty', { catalog, workflowId });
      return { name: catalog, available: false, workflows: [] };
    }
    const running = runStatusOf(info.status) === 'running';
    const available = running && memo.onlineWorkers.length > 0 && (await this.hasLiveWorker(catalog));
    return { name: catalog, available, workflows: this.types.for(catalog, memo.workflows.map(typeInfoOf)) };
  }

  /** Workers poll both queues of their task queue; a poller counts while its last poll is recent enough. */
  private async hasLiveWorker(catalog: string): Promise<boolean> {
    const { calls, clock, workerLivenessMs } = this.options;
    const types = [enums.TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW, enums.TaskQueueType.TASK_QUEUE_TYPE_ACTIVITY];
    const answers = await Promise.all(
      types.map((taskQueueType) =>
        calls.call(() =>
          calls.service.describeTaskQueue({
            namespace: calls.namespace,
            taskQueue: { name: catalog, kind: enums.TaskQueueKind.TASK_QUEUE_KIND_NORMAL },
            taskQueueType,
          }),
        ),
      ),
    );
    const now = clock.now();
    return answers.every((answer) => (answer.pollers ?? []).some((poller) => now - (toMillis(poller.lastAccessTime) ?? 0) <= workerLivenessMs));
  }
}

/** One catalog's description as read from Temporal, until `expiresAt`; with it, the run time limits it publishes. */
class CachedCatalog {
  description!: Promise<CatalogDescription | undefined>;
  runTimeouts: ReadonlyMap<string, number> = new Map();

  constructor(readonly expiresAt: number) {}
}
