import { fileURLToPath } from 'node:url';

const fixture = (name: string): string => fileURLToPath(new URL(`../fixtures/workflows/${name}`, import.meta.url));

/**
 * The catalogs every contract suite runs against, as workflow modules: the embedded engine imports them, a Temporal
 * worker bundles them. `idle` is served by a worker the suites stop, so it is known but unavailable.
 */
export interface TestCatalog {
  catalog: string;
  /** The worker's own workflow modules (absolute paths). */
  modules: string[];
  /** A worker project whose exposed packages join the catalog. */
  projectDir?: string;
  /** The worker's hook files, and how long a hook handler may run. */
  hookFiles?: string[];
  hookTimeoutMs?: number;
  /** A catalog several suite files start workers for (always the same object): bundle it once per process. */
  reuseBundle?: boolean;
}

/** Known but unavailable: its worker is stopped once its workflows are published. */
export const IDLE_FIXTURE: TestCatalog = { catalog: 'idle', modules: [fixture('idleCatalog.ts')] };
/** The one workflow idleCatalog.ts defines. */
export const IDLE_WORKFLOW = 'idle_only';

export const FIXTURE_CATALOGS: TestCatalog[] = [
  { catalog: 'main', modules: [fixture('basic.ts'), fixture('contract.ts'), fixture('counting.ts')] },
  { catalog: 'other', modules: [fixture('otherCatalog.ts')] },
  IDLE_FIXTURE,
];

/**
 * A catalog only tests/contract/tracing.test.ts serves: on a Temporal server other suites share, a worker of theirs
 * on `main` (not traced) could take its runs' tasks, and their spans would never be sent.
 */
export const TRACED_FIXTURE: TestCatalog = { catalog: 'traced', modules: [fixture('basic.ts')] };
