import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { extname, join, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundleWorkflowCode, type BundleOptions } from '@temporalio/worker';
import type { ActivityDefinition } from '../../../core/definition/activity.js';
import type { WorkflowDefinition } from '../../../core/definition/workflow.js';
import type { Logger } from '../../../ports/logger.js';
import { workflowModulesOfDirectory } from '../../workflowSources/localModules.js';
import type { PackageOwnership } from '../../workflowSources/packageOwnership.js';
import { describeStepCollision, registerSteps, type StepModule } from '../../workflowSources/stepRegistration.js';
import { collectWorkerWorkflows } from '../../workflowSources/workerWorkflows.js';
import { WEBHOOK_STEP_NAME } from '../protocol.js';
import { entrySource } from './entrySource.js';
import type { StepStubLoaderOptions } from './stepStubLoader.js';
import { temporalLoggerFor } from './temporalLogger.js';

export interface BundleCatalogOptions {
  /** A directory of workflow modules (its files, not subdirectories), or: */
  workflowsDir?: string;
  /** Absolute paths of workflow modules. */
  workflowModules?: string[];
  /** The worker project: the workflows of exposed packages in its node_modules join the catalog. */
  projectDir?: string;
  /** MAX_RESULT_BYTES: a larger JSON result fails the run with ResultTooLargeError. */
  maxResultBytes: number;
  /**
   * TEMPORAL_MAX_PAYLOAD_BYTES, for a worker without a claim-check store: a larger JSON result fails the run with
   * ResultTooLargeError (Temporal would refuse it). Leave unset when the worker offloads large payloads to S3.
   */
  maxPayloadBytes?: number;
  /**
   * Every step attempt carries its run's workflowDetails in a header (sandbox/workflowDetailsHeader.ts); worker hooks
   * need it, a worker without hooks spares its history the bytes. @default false
   */
  workflowDetailsHeader?: boolean;
  /**
   * Workflow spans: the OpenTelemetry workflow interceptors (@temporalio/interceptors-opentelemetry) join the bundle,
   * for a worker that traces (docs/operations.md, Tracing). @default false
   */
  tracing?: boolean;
  /** Scratch directory for the generated entry module. @default os.tmpdir() */
  cacheDir?: string;
  logger?: Logger;
}

export interface CatalogBundle {
  workflowBundle: { code: string };
  workflows: WorkflowDefinition[];
  /** Step name → definition: every step the bundle's workflows can reach (the modules the loader swapped). */
  activities: Map<string, ActivityDefinition>;
  /** Whether step attempts carry workflowDetails (the option of the same name). */
  workflowDetailsHeader: boolean;
  /** Whether the bundle makes workflow spans (the option of the same name). @default false */
  tracing?: boolean;
  /** The option of the same name: the payload limit baked into the bundle (undefined: none, claim checks carry results). */
  maxPayloadBytes?: number | undefined;
}

type WebpackConfig = Parameters<NonNullable<BundleOptions['webpackConfigHook']>>[0];

// Sources run through tsx (.ts), a build runs .js: the generated code must import the same flavour as this file.
const OWN_EXTENSION = extname(fileURLToPath(import.meta.url));
const runtimeFile = (relative: string): string => fileURLToPath(new URL(`${relative}${OWN_EXTENSION}`, import.meta.url));
const SANDBOX_DIR = fileURLToPath(new URL('../sandbox/', import.meta.url)).replace(/[\\/]$/, '');

/**
 * Bundles a catalog's workflow modules for Temporal's sandbox. The workflow modules are imported in Node first (names
 * and schemas come from the definitions); a generated entry module dispatches every workflow type; webpack swaps each
 * step module for activity stubs (stepStubLoader.ts) and reports the steps it saw, which the worker registers.
 */
export async function bundleCatalog(options: BundleCatalogOptions): Promise<CatalogBundle> {
  if (!(Number.isInteger(options.maxResultBytes) && options.maxResultBytes > 0)) {
    throw new RangeError('bundleCatalog: maxResultBytes must be a positive integer');
  }
  if (options.maxPayloadBytes !== undefined && !(Number.isInteger(options.maxPayloadBytes) && options.maxPayloadBytes > 0)) {
    throw new RangeError('bundleCatalog: maxPayloadBytes must be a positive integer when given');
  }
  const { modules, missing } = await modulesOf(options);
  const logger = options.logger ?? silentLogger;
  const { workflows: workflowExports, ownership } = await collectWorkerWorkflows({ workflowModules: modules, projectDir: options.projectDir, logger });
  if (missing && workflowExports.length === 0) throw missing;
  if (missing) logger.warn(`${missing.message}; serving the workflows of exposed packages only`, { workflowsDir: options.workflowsDir });
  if (workflowExports.length === 0) {
    throw new Error(`no workflow definitions found in ${modules.join(', ') || 'an empty directory'}${options.projectDir ? ` nor in the exposed packages of ${options.projectDir}` : ''}`);
  }

  const base = options.cacheDir ?? tmpdir();
  await mkdir(base, { recursive: true });
  const scratch = await mkdtemp(join(base, 'flowgate-entry-'));
  const stepModules: StepModule[] = [];
  try {
    const entryPath = join(scratch, 'workflows.mjs');
    await writeFile(entryPath, entrySource({ sandboxRuntimePath: runtimeFile('../sandbox/index'), workflows: workflowExports, maxResultBytes: options.maxResultBytes, ...(options.maxPayloadBytes === undefined ? {} : { maxPayloadBytes: options.maxPayloadBytes }) }));
    const loaderOptions: StepStubLoaderOptions = {
      skipPaths: [SANDBOX_DIR, scratch],
      stepActivityModulePath: runtimeFile('../sandbox/stepActivity'),
      onStepModule: (modulePath, steps) => stepModules.push({ modulePath, packageName: ownership.ownerOf(modulePath), steps }),
    };
    const errors: string[] = [];
    const bundlerLogger = temporalLoggerFor(logger, 'WARN', (message) => errors.push(message));
    const workflowBundle = await bundleWorkflowCode({
      workflowsPath: entryPath,
      workflowInterceptorModules: [
        ...(options.workflowDetailsHeader ? [runtimeFile('../sandbox/workflowDetailsHeader')] : []),
        ...(options.tracing ? [workflowTracingModule()] : []),
      ],
      logger: bundlerLogger,
      webpackConfigHook: (config) => withStepStubLoader(config, loaderOptions, ownership),
    }).catch((error: unknown) => {
      const reason = error instanceof Error ? error.message : String(error);
      throw new Error(`bundling the workflow code failed: ${reason}${errors.length ? `\n${errors.join('\n')}` : ''}`);
    });
    return {
      workflowBundle: { code: workflowBundle.code },
      workflows: workflowExports.map(({ definition }) => definition),
      activities: stepTableOf(stepModules, logger),
      workflowDetailsHeader: options.workflowDetailsHeader ?? false,
      tracing: options.tracing ?? false,
      maxPayloadBytes: options.maxPayloadBytes,
    };
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

async function modulesOf(options: BundleCatalogOptions): Promise<Awaited<ReturnType<typeof workflowModulesOfDirectory>>> {
  if ((options.workflowsDir === undefined) === (options.workflowModules === undefined)) {
    throw new TypeError('bundleCatalog: give exactly one of workflowsDir and workflowModules');
  }
  return options.workflowModules ? { modules: [...options.workflowModules] } : workflowModulesOfDirectory(options.workflowsDir!);
}

function withStepStubLoader(config: WebpackConfig, loaderOptions: StepStubLoaderOptions, ownership: PackageOwnership): WebpackConfig {
  const packageDirs = ownership.directories;
  return {
    ...config,
    resolve: {
      ...config.resolve,
      // The entry lives outside the project, where `@temporalio/workflow` (imported by Temporal's generated
      // entrypoint next to it) cannot be found by walking up the directories.
      modules: [...((config.resolve?.modules as string[] | undefined) ?? ['node_modules']), temporalNodeModules()],
    },
    module: {
      ...config.module,
      rules: [
        ...(config.module?.rules ?? []),
        {
          test: /\.(?:[cm]?[jt]s|[jt]sx)$/,
          enforce: 'pre',
          // The worker's own modules, and those of exposed packages (their steps are swapped as well); no other package.
          include: (path: string) =>
            !NODE_MODULES_PATH.test(path) || packageDirs.some((dir) => path.startsWith(dir + sep)),
          use: [{ loader: runtimeFile('./stepStubLoader'), options: loaderOptions }],
        },
      ],
    },
  };
}

/** The sandbox's OpenTelemetry interceptors (inbound, outbound, internals), resolved only for a bundle that traces. */
function workflowTracingModule(): string {
  return createRequire(import.meta.url).resolve('@temporalio/interceptors-opentelemetry/lib/workflow-interceptors');
}

/** The node_modules directory that holds @temporalio/workflow. */
function temporalNodeModules(): string {
  const resolved = createRequire(import.meta.url).resolve('@temporalio/workflow');
  const marker = `${sep}node_modules${sep}`;
  return resolved.slice(0, resolved.lastIndexOf(marker) + marker.length - 1);
}

/**
 * The activities to register: every step module webpack swapped, registered by name in the one name space of steps
 * and evaluators (a later registration wins; each collision is logged with both sources).
 */
function stepTableOf(stepModules: readonly StepModule[], logger: Logger): Map<string, ActivityDefinition> {
  for (const module of stepModules) {
    const reserved = module.steps.find((step) => step.name === WEBHOOK_STEP_NAME);
    if (reserved) throw new Error(`step name "${reserved.name}" (in ${module.modulePath}) is reserved for the internal step of ctx.waitForWebhook`);
  }
  const table = registerSteps(stepModules);
  for (const collision of table.collisions) logger.warn(describeStepCollision(collision), { step: collision.name });
  return table.byName;
}

const NODE_MODULES_PATH = /[\\/]node_modules[\\/]/;
const silentLogger: Logger = { info: () => {}, warn: () => {}, error: () => {} };
