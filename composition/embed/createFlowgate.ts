import type { FlowgateApi } from '../../core/api/flowgateApi.js';
import { definedStepNames } from '../../core/definition/definedSteps.js';
import type { WorkflowDefinition } from '../../core/definition/workflow.js';
import { LOGGER, WORKFLOW_ENGINE } from '../../ports/index.js';
import type { WorkflowEngine } from '../../ports/engine.js';
import type { RunObserver } from '../../ports/runObserver.js';
import { toFetchHandler, toNodeHandler, type FetchHandler, type NodeRequestHandler, type OpenApiDocument } from '../../adapters/http/index.js';
import { composeFlowgate, type ComposeOptions, type Composition, type FlowgateParts } from '../container.js';
import { parseConfig, type EnvInput, type FlowgateConfig } from '../config.js';
import { loadEmbeddedWorker, type WorkerSpec } from '../workers/workerSpecs.js';
import { EmbeddedWorkers } from '../workers/runningWorkers.js';
import { ACCESS_KEYS, FLOWGATE_API, HTTP_APP, RUN_WAITS_END } from '../tokens.js';
import type { KeyFileEntry } from '../../adapters/access/keyFile.js';

/** A step's replacement: takes the step's input, returns (or resolves to) its output. */
export type StepReplacement = (input: any) => unknown;

export interface CreateFlowgateOptions extends FlowgateParts {
  /** Workflow definitions to serve (imported by your code). */
  workflows?: readonly WorkflowDefinition<any, any>[] | undefined;
  /** A directory of workflow modules to serve (.ts, .mts, .js, .mjs; TypeScript loads as it is). */
  workflowsDir?: string | undefined;
  /** The workflows of the exposed packages in this project's node_modules join the catalog (docs/packages.md). @default none */
  projectDir?: string | undefined;
  /** The catalog the workflows are served in. @default DEFAULT_CATALOG, `main` */
  catalog?: string | undefined;
  /** Step and evaluator code replaced by name (a fake payment step in a demo, say). Schemas, retries and history stay. */
  steps?: Readonly<Record<string, StepReplacement>> | undefined;
  /** The prefix both handlers are mounted under, e.g. `/flows` (Location, Link, messages and logs carry it). */
  basePath?: string | undefined;
  /**
   * Bearer token every endpoint but /health, /ready and /openapi.json requires: one API key, id `token`, with every
   * scope. @default API_AUTH_TOKEN of `env`, else none
   */
  authToken?: string | undefined;
  /**
   * Whether the handlers compress large answers (brotli or gzip, by the request's `Accept-Encoding`). Turn it off
   * when your framework compresses (Express's `compression`, Hono's `compress()`, a proxy).
   * @default COMPRESSION of `env`, else true
   */
  compression?: boolean | undefined;
  /**
   * A file of API keys with scopes and limits (docs/security.md), read again when it changes; `reloadAccessKeys()`
   * reads it at once. @default API_KEYS_FILE of `env`, else none
   */
  apiKeysFile?: string | undefined;
  /** API keys given as the key file's entries (`{ id, sha256, scopes, catalogs?, workflows?, expiresAt? }`), besides the file's. */
  apiKeys?: readonly KeyFileEntry[] | undefined;
  /**
   * Configuration variables, as the README's table lists them (`env: process.env` reads the process's). Only these are
   * read: by default every variable has its documented default (the embedded engine with its runs in .flowgate under
   * the current directory, traces under ./traces).
   * @default {}
   */
  env?: EnvInput | undefined;
}

export interface Flowgate {
  /** Every use case, as the endpoints call them. */
  api: FlowgateApi;
  /** `(req, res)` for node:http, Express (`app.use('/flows', nodeHandler)`) or Fastify (see docs/embedding.md). */
  nodeHandler: NodeRequestHandler;
  /** `(Request) => Promise<Response>` for Hono, Bun, Deno or any fetch-style server. */
  fetchHandler: FetchHandler;
  /** The engine the runs are on. */
  engine: WorkflowEngine;
  /** The OpenAPI 3.1 document the API serves at /openapi.json. */
  openApiDocument: OpenApiDocument;
  /** Reads `apiKeysFile` again (a SIGHUP handler of yours can call it); undefined without a key file. */
  reloadAccessKeys(): Promise<'reloaded' | 'unchanged' | 'kept' | undefined>;
  /**
   * Ends open history streams and run waits at once, then stops the workers and the engine. Stop your server taking
   * connections at the same time (`server.close(); await flowgate.close()`): the streams end only here. Safe to call twice.
   */
  close(): Promise<void>;
}

/**
 * flowgate inside your own server: the API over the embedded engine (or the engine you give), with both handlers.
 * The same composition as `flowgate serve` (composition/container.ts), without the listening socket.
 */
export async function createFlowgate(options: CreateFlowgateOptions = {}): Promise<Flowgate> {
  return (await composeEmbedded(options)).flowgate;
}

/** One flowgate as it was assembled: what its users get, the composition it came from, and its embedded workers. */
export interface AssembledFlowgate {
  flowgate: Flowgate;
  composition: Composition;
  /** The embedded engine's workers; undefined on another engine, whose workers run elsewhere. */
  workers: EmbeddedWorkers | undefined;
}

/** createFlowgate's wiring, shared with flowgate/testing (which adds its clock, traces and time skipping). */
export async function composeEmbedded(
  options: CreateFlowgateOptions,
  compose: Pick<ComposeOptions, 'decorateEngine'> & {
    observe?: (hooks: RunObserver | undefined) => RunObserver;
    /** The function the user called, which refusals of its options name. @default 'createFlowgate' */
    caller?: string;
  } = {},
): Promise<AssembledFlowgate> {
  const parsed = parseConfig(options.env ?? {});
  const config = {
    ...parsed,
    ...(options.authToken === undefined ? {} : { authToken: options.authToken }),
    ...(options.compression === undefined ? {} : { compression: options.compression }),
    ...(options.apiKeysFile === undefined ? {} : { apiKeysFile: options.apiKeysFile }),
  };
  const { workflows, workflowsDir, projectDir, catalog, steps, basePath, env: _env, authToken: _token, compression: _compression, apiKeysFile: _file, apiKeys, ...parts } = options;
  const { caller = 'createFlowgate', ...composeRest } = compose;
  const assembled = await assembleFlowgate(
    config,
    parts,
    { ...composeRest, ...(basePath === undefined ? {} : { basePath }), ...(apiKeys === undefined ? {} : { apiKeys }) },
    async (composition) => [withObserver(await workerSpec(options, catalog ?? config.defaultCatalog, composition, caller), compose.observe)],
  );
  if (!assembled.workers && (workflows || workflowsDir || steps)) {
    return assembled.composition.closers.rollBack(
      new TypeError(`${caller}: workflows, workflowsDir and steps are for the embedded engine; with another engine, its workers serve the workflows`),
    );
  }
  return assembled;
}

/**
 * THE assembly of createFlowgate, flowgate/testing and the bundled server (which adds its listeners): the composition,
 * then the embedded engine's workers, each pushed onto the composition's closers as it starts; a part that fails to
 * start closes those started before it. `close()` closes them all, in reverse.
 */
export async function assembleFlowgate(
  config: FlowgateConfig,
  parts: FlowgateParts,
  compose: ComposeOptions,
  workerSpecs: (composition: Composition) => Promise<WorkerSpec[]>,
): Promise<AssembledFlowgate> {
  const composition = await composeFlowgate(config, parts, compose);
  const { closers, embeddedEngine } = composition;
  let workers: EmbeddedWorkers | undefined;
  try {
    if (embeddedEngine) {
      // Their step attempts are counted by the engine itself (its metrics option).
      const started = new EmbeddedWorkers(embeddedEngine, await workerSpecs(composition));
      closers.push('embedded workers', () => started.close());
      started.startAll();
      workers = started;
    }
  } catch (error) {
    return closers.rollBack(error);
  }
  const app = composition.resolve(HTTP_APP);
  const runWaitsEnd = composition.resolve(RUN_WAITS_END);
  // Closed before the workers: run waits and open history streams end first (a history stream never finishes by
  // itself and would hold a host's server open).
  closers.push('run waits', () => runWaitsEnd.abort());
  const flowgate: Flowgate = {
    api: composition.resolve(FLOWGATE_API),
    nodeHandler: toNodeHandler(app, { shutdownSignal: runWaitsEnd.signal }),
    fetchHandler: toFetchHandler(app, { shutdownSignal: runWaitsEnd.signal }),
    engine: composition.resolve(WORKFLOW_ENGINE),
    openApiDocument: app.openApiDocument,
    reloadAccessKeys: () => composition.resolve(ACCESS_KEYS).reload(),
    close: () => composition.close(config.shutdownGraceMs),
  };
  return { flowgate, composition, workers };
}

/** The worker's hooks, wrapped (flowgate/testing counts step attempts through them); closed with the worker. */
function withObserver(spec: WorkerSpec, observe: ((hooks: RunObserver | undefined) => RunObserver) | undefined): WorkerSpec {
  if (!observe) return spec;
  const hooks = spec.observer;
  return { ...spec, observer: Object.assign(observe(hooks), { close: async () => hooks?.close() }) };
}

/** One worker for the catalog: the definitions given, the modules of a directory, and exposed packages, in one name space. */
async function workerSpec(options: CreateFlowgateOptions, catalog: string, composition: Composition, caller: string): Promise<WorkerSpec> {
  const logger = composition.resolve(LOGGER);
  const loaded =
    options.workflowsDir !== undefined || options.projectDir !== undefined
      ? await loadEmbeddedWorker({
          catalog,
          ...(options.workflowsDir === undefined ? { workflowModules: [] } : { workflowsDir: options.workflowsDir }),
          ...(options.projectDir === undefined ? {} : { projectDir: options.projectDir }),
          logger,
        })
      : undefined;
  const byName = new Map<string, WorkflowDefinition<any, any>>();
  for (const definition of [...(loaded?.workflows ?? []), ...(options.workflows ?? [])]) {
    const known = byName.get(definition.name);
    if (known && known !== definition) throw new TypeError(`${caller}: two different workflows are named "${definition.name}"`);
    byName.set(definition.name, definition);
  }
  const replaceSteps = options.steps ? new Map(Object.entries(options.steps)) : undefined;
  for (const [name, replacement] of replaceSteps ?? []) {
    if (typeof replacement !== 'function') throw new TypeError(`${caller}: steps.${name} must be a function`);
    const refusal = unknownStepReplacement(name, options.workflows !== undefined, loaded?.steps);
    if (refusal) throw new TypeError(`${caller}: ${refusal}`);
  }
  return {
    catalog,
    workflows: [...byName.values()],
    ...(loaded?.steps ? { steps: loaded.steps } : {}),
    ...(loaded?.observer ? { observer: loaded.observer } : {}),
    ...(replaceSteps ? { replaceSteps } : {}),
  };
}

/**
 * Why a replacement names no step, or undefined when it names one. The steps of a workflows directory (and of exposed
 * packages) are those of their step modules; workflows given as definitions come with no module to read, so their
 * steps are every step defined in the process: the workflows' steps are defined before the workflows can be passed
 * (by their modules, or by the test file that defines them), so a misspelled name is in neither.
 */
function unknownStepReplacement(name: string, definitionsGiven: boolean, moduleSteps: ReadonlyMap<string, unknown> | undefined): string | undefined {
  if (moduleSteps?.has(name) || (definitionsGiven && definedStepNames().has(name))) return undefined;
  if (!definitionsGiven) return `steps.${name} replaces no step: the workflows' step modules have ${[...(moduleSteps?.keys() ?? [])].join(', ') || 'none'}`;
  const known = [...new Set([...(moduleSteps?.keys() ?? []), ...definedStepNames()])].sort();
  return `steps.${name} replaces no step: the steps defined are ${known.join(', ') || 'none'}`;
}
