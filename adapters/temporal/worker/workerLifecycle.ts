import type { Worker } from '@temporalio/worker';
import type { Logger } from '../../../ports/logger.js';
import type { CatalogPublisher } from './catalogPublisher.js';

/** How long shutdown waits for the catalog memo to drop this worker before it stops anyway. */
const OFFLINE_ACKNOWLEDGE_TIMEOUT_MS = 10_000;

export interface WorkerHandle {
  /** This worker's identity: in the catalog memo's onlineWorkers while it runs. */
  readonly identity: string;
  /** Publishes the catalog, then polls the task queue until shutdown(); resolves when the worker has stopped. */
  run(): Promise<void>;
  /** Resolves once the catalog memo lists this worker online (after run() started); rejects after `timeoutMs`. */
  waitUntilPublished(timeoutMs?: number): Promise<void>;
  /** Says goodbye to the catalog (while still polling, so the goodbye is applied), then stops. Safe to call twice. */
  shutdown(): Promise<void>;
}

/** The running side of a flowgate worker: Temporal's Worker, the catalog publication and the connections. */
export class WorkerLifecycle implements WorkerHandle {
  private running: Promise<void> | undefined;
  private publication: Promise<void> | undefined;
  private stopping: Promise<void> | undefined;
  private closed: Promise<void> | undefined;

  constructor(
    readonly identity: string,
    private readonly worker: Worker,
    private readonly publisher: CatalogPublisher,
    private readonly logger: Logger,
    private readonly closeConnections: () => Promise<void>,
  ) {}

  run(): Promise<void> {
    if (this.stopping && !this.running) return Promise.reject(new Error('the worker was shut down before it ran'));
    this.running ??= this.runOnce();
    return this.running;
  }

  async waitUntilPublished(timeoutMs = 30_000): Promise<void> {
    if (!this.running) throw new Error('waitUntilPublished: call run() first');
    await this.publication;
    if (!(await this.publisher.waitUntilListed(true, timeoutMs))) {
      throw new Error(`the catalog did not list worker ${this.identity} as online within ${timeoutMs} ms`);
    }
  }

  shutdown(): Promise<void> {
    this.stopping ??= this.stopOnce();
    return this.stopping;
  }

  private async runOnce(): Promise<void> {
    // Poll first, so the publication signal (and any waiting task) is picked up at once.
    const polling = this.worker.run();
    // A fatal worker error can come while the publication is awaited, before `polling` is: handled now, so Node does
    // not end the process on it; it is still thrown below.
    polling.catch(() => undefined);
    try {
      this.publication = this.publisher.publish();
      await this.publication;
      this.logger.info('flowgate worker running', { identity: this.identity });
      await polling;
    } catch (error) {
      if (this.worker.getState() === 'RUNNING') this.worker.shutdown();
      await polling.catch(() => {});
      throw error;
    } finally {
      await this.close();
    }
  }

  private async stopOnce(): Promise<void> {
    if (!this.running) {
      // A created Worker holds its connection until it has run; run it down at once so everything can close.
      const polling = this.worker.run();
      this.worker.shutdown();
      await polling.finally(() => this.close());
      return;
    }
    // A goodbye must not overtake the hello, or the memo would list this worker after it left.
    await this.publication?.catch(() => {});
    if (this.worker.getState() === 'RUNNING') await this.sayGoodbye();
    if (this.worker.getState() === 'RUNNING') this.worker.shutdown();
    await this.running.catch(() => {});
  }

  private async sayGoodbye(): Promise<void> {
    try {
      await this.publisher.goOffline();
      if (!(await this.publisher.waitUntilListed(false, OFFLINE_ACKNOWLEDGE_TIMEOUT_MS))) {
        this.logger.warn('the catalog still lists this worker as online; stopping anyway', { identity: this.identity });
      }
    } catch (error) {
      this.logger.warn('could not tell the catalog this worker is going offline', {
        identity: this.identity,
        error: error instanceof Error ? error.message : String(error),
      });
    }
  }

  private close(): Promise<void> {
    this.closed ??= this.closeConnections().catch((error: unknown) => {
      this.logger.warn('closing the Temporal connections failed', { error: error instanceof Error ? error.message : String(error) });
    });
    return this.closed;
  }
}
