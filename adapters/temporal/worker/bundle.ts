import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { extname, join, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundleWorkflowCode, type BundleOptions } from '@temporalio/worker';
import type { ActivityDefinition } from '../../../core/definition/activity.js';
import type { WorkflowDefinition } from '../../../core/definition/workflow.js';
import type { Logger } from '../../../ports/logger.js';
import { WEBHOOK_STEP_NAME } from '../protocol.js';
import { entrySource } from './entrySource.js';
import type { StepStubLoaderOptions } from './stepStubLoader.js';
import { temporalLoggerFor } from './temporalLogger.js';
import { importWorkflowExports, workflowModulesIn } from './workflowModules.js';

export interface BundleCatalogOptions {
  /** A directory of workflow modules (its files, not subdirectories), or: */
  workflowsDir?: string;
  /** Absolute paths of workflow modules. */
  workflowModules?: string[];
  /** MAX_RESULT_BYTES: a larger JSON result fails the run with ResultTooLargeError. */
  maxResultBytes: number;
  /** Scratch directory for the generated entry module. @default os.tmpdir() */
  cacheDir?: string;
  logger?: Logger;
}

export interface CatalogBundle {
  workflowBundle: { code: string };
  workflows: WorkflowDefinition[];
  /** Step name → definition: every step the bundle's workflows can reach (the modules the loader swapped). */
  activities: Map<string, ActivityDefinition>;
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
  const modules = await modulesOf(options);
  const workflowExports = await importWorkflowExports(modules);
  if (workflowExports.length === 0) throw new Error(`no workflow definitions found in ${modules.join(', ') || 'an empty directory'}`);

  const base = options.cacheDir ?? tmpdir();
  await mkdir(base, { recursive: true });
  const scratch = await mkdtemp(join(base, 'flowgate-entry-'));
  const activities = new StepRegistry();
  try {
    const entryPath = join(scratch, 'workflows.mjs');
    await writeFile(entryPath, entrySource({ sandboxRuntimePath: runtimeFile('../sandbox/index'), workflows: workflowExports, maxResultBytes: options.maxResultBytes }));
    const loaderOptions: StepStubLoaderOptions = {
      skipPaths: [SANDBOX_DIR, scratch],
      stepActivityModulePath: runtimeFile('../sandbox/stepActivity'),
      onStepModule: (modulePath, steps) => activities.add(modulePath, steps),
    };
    const errors: string[] = [];
    const logger = temporalLoggerFor(options.logger ?? silentLogger, 'WARN', (message) => errors.push(message));
    const workflowBundle = await bundleWorkflowCode({
      workflowsPath: entryPath,
      logger,
      webpackConfigHook: (config) => withStepStubLoader(config, loaderOptions),
    }).catch((error: unknown) => {
      const reason = error instanceof Error ? error.message : String(error);
      throw new Error(`bundling the workflow code failed: ${reason}${errors.length ? `\n${errors.join('\n')}` : ''}`);
    });
    return { workflowBundle: { code: workflowBundle.code }, workflows: workflowExports.map(({ definition }) => definition), activities: activities.byName };
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

async function modulesOf(options: BundleCatalogOptions): Promise<string[]> {
  if ((options.workflowsDir === undefined) === (options.workflowModules === undefined)) {
    throw new TypeError('bundleCatalog: give exactly one of workflowsDir and workflowModules');
  }
  return options.workflowModules ? [...options.workflowModules] : workflowModulesIn(options.workflowsDir!);
}

function withStepStubLoader(config: WebpackConfig, loaderOptions: StepStubLoaderOptions): WebpackConfig {
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
          exclude: /[\\/]node_modules[\\/]/,
          use: [{ loader: runtimeFile('./stepStubLoader'), options: loaderOptions }],
        },
      ],
    },
  };
}

/** The node_modules directory that holds @temporalio/workflow. */
function temporalNodeModules(): string {
  const resolved = createRequire(import.meta.url).resolve('@temporalio/workflow');
  const marker = `${sep}node_modules${sep}`;
  return resolved.slice(0, resolved.lastIndexOf(marker) + marker.length - 1);
}

/** Steps by name, refusing two different definitions under one name (their activity types would collide). */
class StepRegistry {
  readonly byName = new Map<string, ActivityDefinition>();
  private readonly origins = new Map<string, string>();

  add(modulePath: string, steps: readonly ActivityDefinition[]): void {
    for (const step of steps) {
      if (step.name === WEBHOOK_STEP_NAME) {
        throw new Error(`step name "${step.name}" (in ${modulePath}) is reserved for the internal step of ctx.waitForWebhook`);
      }
      const known = this.byName.get(step.name);
      if (known && known !== step) {
        throw new Error(`step name "${step.name}" is defined twice: in ${this.origins.get(step.name)} and in ${modulePath}`);
      }
      this.byName.set(step.name, step);
      if (!this.origins.has(step.name)) this.origins.set(step.name, modulePath);
    }
  }
}

const silentLogger: Logger = { info: () => {}, warn: () => {}, error: () => {} };
