import type { EmbeddedEngine, WorkerHandle } from '../../adapters/embedded/index.js';
import type { WorkerSpec } from './workerSpecs.js';

/** The embedded engine's workers of one flowgate: started together, each stoppable by catalog, closed with it. */
export class EmbeddedWorkers {
  private readonly running = new Map<string, WorkerHandle>();
  /** Runs still open when the workers stopped (the durable store resumes them at the next start); undefined before. */
  openRunsLeft: number | undefined;

  constructor(
    private readonly engine: EmbeddedEngine,
    readonly specs: readonly WorkerSpec[],
  ) {}

  startAll(): void {
    for (const spec of this.specs) this.start(spec.catalog);
  }

  /** Serves the catalog again (a test brings a stopped catalog back). */
  start(catalog: string): void {
    const spec = this.specs.find((worker) => worker.catalog === catalog);
    if (!spec) throw new Error(`no worker is configured for catalog "${catalog}"`);
    if (!this.running.has(catalog)) this.running.set(catalog, this.engine.registerWorker(spec));
  }

  /** Stops serving the catalog: it becomes known but unavailable (503), as on Temporal when its workers stop. */
  stop(catalog: string): void {
    this.running.get(catalog)?.stop();
    this.running.delete(catalog);
  }

  async close(): Promise<void> {
    for (const catalog of [...this.running.keys()]) this.stop(catalog);
    await Promise.all(this.specs.map((spec) => spec.observer?.close()));
    this.openRunsLeft = this.engine.openRunCount;
  }
}
