import type { CatalogDescription, WorkflowTypeInfo } from '../../core/domain/catalog.js';
import { CatalogNotAvailableError, UnsupportedWorkflowError } from '../../core/domain/errors.js';
import type { ActivityDefinition } from '../../core/definition/activity.js';
import { publishedTypeInfo } from '../../core/definition/publishedSchemas.js';
import { deepFreeze } from '../../core/domain/json.js';
import { isWorkflowDefinition, type WorkflowDefinition } from '../../core/definition/workflow.js';
import type { Logger } from '../../ports/logger.js';
import { silentRunObserver, type RunObserver } from '../../ports/runObserver.js';

export interface WorkerRegistration {
  /** The catalog (Temporal: task queue) this worker serves. */
  catalog: string;
  // `any`: a definition's fn takes its own input type, so typed definitions are not WorkflowDefinition<unknown>.
  workflows: readonly WorkflowDefinition<any, any>[];
  /**
   * The worker's step and evaluator table by name, as a Temporal worker registers its activities. A step call made by
   * a run of this catalog executes the table's entry of that name, so when two steps share a name the one the worker
   * registered wins on both engines. @default each call runs the step it was made with
   */
  steps?: ReadonlyMap<string, ActivityDefinition>;
  /** The worker's hooks (adapters/hooks): told of its catalog's runs and step attempts. @default none */
  observer?: RunObserver;
  /**
   * Step and evaluator code replaced by name (tests: flowgate/testing). A call of that name runs this function instead
   * of the step's own, keeping everything else of the step (schemas, retries, time limit, history, trace). @default none
   */
  replaceSteps?: ReadonlyMap<string, (input: any) => unknown>;
}

export interface WorkerHandle {
  /** Stops serving the catalog. Safe to call twice. */
  stop(): void;
}

/** A workflow a worker serves: its definition, and what the catalog publishes of it. */
interface ServedWorkflow {
  definition: WorkflowDefinition;
  info: WorkflowTypeInfo;
}

interface Worker {
  workflows: ReadonlyMap<string, ServedWorkflow>;
  steps: ReadonlyMap<string, ActivityDefinition> | undefined;
  observer: RunObserver | undefined;
  replaceSteps: ReadonlyMap<string, (input: any) => unknown> | undefined;
}

interface CatalogEntry {
  /** Live workers, oldest first; the newest one wins when two serve the same workflow name. */
  live: Worker[];
  /** What the catalog publishes: its live workers' workflows, or the last ones known once all have stopped. */
  published: Map<string, ServedWorkflow>;
}

/**
 * Catalogs as Temporal task queues: a catalog is known once a worker registered for it, and available while at
 * least one of its workers runs. JSON Schemas are computed once per definition, never per run or request.
 */
export class CatalogRegistry {
  private readonly catalogs = new Map<string, CatalogEntry>();
  private readonly typeInfos = new WeakMap<WorkflowDefinition, WorkflowTypeInfo>();

  constructor(private readonly logger: Logger) {}

  register(registration: WorkerRegistration): WorkerHandle {
    const { catalog, workflows, steps, replaceSteps } = checkRegistration(registration);
    const worker: Worker = {
      workflows: new Map(workflows.map((definition) => [definition.name, this.publish(definition as WorkflowDefinition)])),
      steps,
      observer: registration.observer,
      replaceSteps,
    };
    let entry = this.catalogs.get(catalog);
    if (!entry) {
      entry = { live: [], published: new Map() };
      this.catalogs.set(catalog, entry);
    }
    entry.live.push(worker);
    for (const [name, workflow] of worker.workflows) entry.published.set(name, workflow);
    const catalogEntry = entry;
    return {
      stop: () => {
        const index = catalogEntry.live.indexOf(worker);
        if (index === -1) return;
        catalogEntry.live.splice(index, 1);
        if (catalogEntry.live.length > 0) catalogEntry.published = mergeWorkers(catalogEntry.live);
      },
    };
  }

  describe(catalog: string): CatalogDescription | undefined {
    const entry = this.catalogs.get(catalog);
    if (!entry) return undefined;
    return {
      name: catalog,
      available: entry.live.length > 0,
      workflows: [...entry.published.values()].map(({ info }) => info),
    };
  }

  catalogsWith(workflowName: string): string[] {
    return [...this.catalogs].filter(([, entry]) => entry.published.has(workflowName)).map(([name]) => name);
  }

  /** The definition a new run executes; the same errors a start meets on Temporal without a worker or type. */
  definitionFor(catalog: string, workflowName: string): WorkflowDefinition {
    const entry = this.catalogs.get(catalog);
    if (!entry) throw CatalogNotAvailableError.unknown(catalog);
    if (entry.live.length === 0) throw CatalogNotAvailableError.noLiveWorker(catalog);
    for (let index = entry.live.length - 1; index >= 0; index -= 1) {
      const found = entry.live[index]?.workflows.get(workflowName);
      if (found) return found.definition;
    }
    throw new UnsupportedWorkflowError(`Workflow "${workflowName}" is not served by catalog "${catalog}"`);
  }

  /** The hooks of the newest live worker of `catalog` (a run's events go to the worker that serves it). */
  observerFor(catalog: string): RunObserver {
    const live = this.catalogs.get(catalog)?.live ?? [];
    return live.at(-1)?.observer ?? silentRunObserver;
  }

  /** The step a run of `catalog` executes for a call of `called`: the newest live worker's registration of its name. */
  stepFor(catalog: string, called: ActivityDefinition): ActivityDefinition {
    const live = this.catalogs.get(catalog)?.live ?? [];
    let step = called;
    for (let index = live.length - 1; index >= 0; index -= 1) {
      const registered = live[index]?.steps?.get(called.name);
      if (registered) {
        step = registered;
        break;
      }
    }
    const replacement = live.at(-1)?.replaceSteps?.get(step.name);
    return replacement ? { ...step, fn: async (input: unknown) => replacement(input) } : step;
  }

  /** Like definitionFor, but undefined instead of an error (reset and continue-as-new fall back to the old code). */
  liveDefinition(catalog: string, workflowName: string): WorkflowDefinition | undefined {
    try {
      return this.definitionFor(catalog, workflowName);
    } catch {
      return undefined;
    }
  }

  private publish(definition: WorkflowDefinition): ServedWorkflow {
    let info = this.typeInfos.get(definition);
    if (!info) {
      info = deepFreeze(publishedTypeInfo(definition, this.logger));
      this.typeInfos.set(definition, info);
    }
    return { definition, info };
  }
}

function checkRegistration(registration: WorkerRegistration): {
  catalog: string;
  workflows: readonly WorkflowDefinition[];
  steps: ReadonlyMap<string, ActivityDefinition> | undefined;
  replaceSteps: ReadonlyMap<string, (input: any) => unknown> | undefined;
} {
  if (typeof registration !== 'object' || registration === null) throw new TypeError('registerWorker: expected { catalog, workflows }');
  const { catalog, workflows } = registration;
  if (typeof catalog !== 'string' || catalog.length === 0) throw new TypeError('registerWorker: catalog must be a non-empty string');
  if (!Array.isArray(workflows)) throw new TypeError('registerWorker: workflows must be an array of workflow definitions');
  const names = new Set<string>();
  for (const definition of workflows) {
    if (!isWorkflowDefinition(definition)) throw new TypeError('registerWorker: workflows must contain only workflow() definitions');
    if (names.has(definition.name)) throw new TypeError(`registerWorker: workflow "${definition.name}" is listed twice`);
    names.add(definition.name);
  }
  const { steps } = registration;
  if (steps !== undefined && !(steps instanceof Map)) throw new TypeError('registerWorker: steps must be a Map of step name to definition');
  const { replaceSteps } = registration;
  if (replaceSteps !== undefined && (!(replaceSteps instanceof Map) || [...replaceSteps.values()].some((fn) => typeof fn !== 'function'))) {
    throw new TypeError('registerWorker: replaceSteps must be a Map of step name to function');
  }
  return { catalog, workflows: workflows as readonly WorkflowDefinition[], steps, replaceSteps };
}

function mergeWorkers(workers: readonly Worker[]): Map<string, ServedWorkflow> {
  const merged = new Map<string, ServedWorkflow>();
  for (const worker of workers) for (const [name, workflow] of worker.workflows) merged.set(name, workflow);
  return merged;
}
