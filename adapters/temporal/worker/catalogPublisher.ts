import { setTimeout as delay } from 'node:timers/promises';
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import type { WorkflowTypeInfo } from '../../../core/domain/catalog.js';
import {
  CATALOG_MEMO_KEY,
  CATALOG_PUBLISH_SIGNAL,
  CATALOG_WORKER_OFFLINE_SIGNAL,
  CATALOG_WORKFLOW_TYPE,
  catalogWorkflowId,
  type CatalogMemo,
  type CatalogPublication,
} from '../protocol.js';

const MEMO_POLL_INTERVAL_MS = 100;

/** A worker's side of the catalog registry workflow (sandbox/catalogWorkflow.ts). */
export class CatalogPublisher {
  constructor(
    private readonly client: Client,
    private readonly catalog: string,
    private readonly workerIdentity: string,
    private readonly workflows: WorkflowTypeInfo[],
  ) {}

  /**
   * Starts the catalog workflow with the content in its memo, or, when it already runs, signals the publication:
   * signal-with-start does either atomically, so two workers starting together cannot both start it. No worker
   * needs to be polling for a first start: the memo is there as soon as the workflow is.
   */
  async publish(): Promise<void> {
    const publication: CatalogPublication = { workerIdentity: this.workerIdentity, workflows: this.workflows };
    const memo: CatalogMemo = {
      catalog: this.catalog,
      workflows: this.workflows,
      onlineWorkers: [this.workerIdentity],
      publishedAt: new Date().toISOString(),
    };
    await this.client.workflow.signalWithStart(CATALOG_WORKFLOW_TYPE, {
      workflowId: catalogWorkflowId(this.catalog),
      taskQueue: this.catalog,
      args: [],
      memo: { [CATALOG_MEMO_KEY]: memo },
      signal: CATALOG_PUBLISH_SIGNAL,
      signalArgs: [publication],
    });
  }

  /** Tells the catalog this worker is leaving; a worker of the catalog (this one, still polling) applies it. */
  async goOffline(): Promise<void> {
    await this.client.workflow.getHandle(catalogWorkflowId(this.catalog)).signal(CATALOG_WORKER_OFFLINE_SIGNAL, {
      workerIdentity: this.workerIdentity,
    });
  }

  /** Whether the published memo lists this worker as online (undefined while there is no catalog workflow). */
  async isListedOnline(): Promise<boolean | undefined> {
    let description;
    try {
      description = await this.client.workflow.getHandle(catalogWorkflowId(this.catalog)).describe();
    } catch (error) {
      if (error instanceof WorkflowNotFoundError) return undefined;
      throw error;
    }
    const memo = description.memo?.[CATALOG_MEMO_KEY] as CatalogMemo | undefined;
    return memo?.onlineWorkers.includes(this.workerIdentity);
  }

  /** Polls the memo until this worker is (or is no longer) listed; false when `timeoutMs` passed first. */
  async waitUntilListed(online: boolean, timeoutMs: number): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if ((await this.isListedOnline()) === online) return true;
      if (Date.now() >= deadline) return false;
      await delay(MEMO_POLL_INTERVAL_MS);
    }
  }
}
