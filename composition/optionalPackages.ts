/**
 * A feature used whose package is not installed. The Temporal worker's packages and the S3 client are optional peer
 * dependencies: the embedded engine installs without the worker's native core (docs/embedding.md has the sizes).
 */
export class MissingPackageError extends Error {
  override name = 'MissingPackageError';

  constructor(
    readonly packageNames: readonly string[],
    readonly neededFor: string,
    options?: { cause?: unknown },
  ) {
    super(`${neededFor} needs ${packageNames.join(', ')}, which ${packageNames.length > 1 ? 'are' : 'is'} not installed: npm install ${packageNames.join(' ')}`, options);
  }
}

/** The optional packages of each feature that needs one. */
export const OPTIONAL_PACKAGES = {
  temporalWorker: ['@temporalio/worker', '@temporalio/workflow', '@temporalio/activity'],
  s3: ['@aws-sdk/client-s3'],
  /** OTEL_EXPORTER_OTLP_ENDPOINT: the OpenTelemetry SDK and its OTLP/HTTP exporter. */
  tracing: [
    '@opentelemetry/api',
    '@opentelemetry/sdk-trace-base',
    '@opentelemetry/resources',
    '@opentelemetry/core',
    '@opentelemetry/context-async-hooks',
    '@opentelemetry/exporter-trace-otlp-http',
  ],
  /** Tracing on Temporal, API and worker alike: Temporal's OpenTelemetry interceptors. */
  temporalTracing: ['@temporalio/interceptors-opentelemetry'],
} as const;

/**
 * Imports a module of ours that needs an optional package, only when its feature is used. A missing package becomes a
 * MissingPackageError naming what to install; any other failure is left as it is.
 */
export async function importNeeding<T>(load: () => Promise<T>, packages: readonly string[], neededFor: string): Promise<T> {
  try {
    return await load();
  } catch (error) {
    if (packages.some((name) => isMissingPackage(error, name))) throw new MissingPackageError(packages, neededFor, { cause: error });
    throw error;
  }
}

/**
 * MissingPackageError unless every package resolves from here, without loading any: for a command that would start
 * other work (the Temporal dev server) before the process that imports them finds them missing.
 */
export function assertInstalled(packages: readonly string[], neededFor: string): void {
  const missing = packages.filter((name) => {
    try {
      import.meta.resolve(name);
      return false;
    } catch {
      return true;
    }
  });
  if (missing.length > 0) throw new MissingPackageError(packages, neededFor);
}

function isMissingPackage(error: unknown, name: string): boolean {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  return (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') && typeof message === 'string' && message.includes(`'${name}'`);
}
