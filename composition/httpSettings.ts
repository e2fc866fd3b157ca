import type { HttpAppOptions, HttpServerOptions } from '../adapters/http/index.js';
import type { FlowgateConfig } from './config.js';

/**
 * What the HTTP app takes from the configuration (its limits; the ports and the mount come from elsewhere, and the
 * keys, API_AUTH_TOKEN's among them, from composition/accessKeys.ts).
 */
export type HttpAppSettings = Omit<HttpAppOptions, 'api' | 'logger' | 'ids' | 'basePath' | 'authToken' | 'accessKeys'>;

export function httpAppSettings(config: FlowgateConfig): HttpAppSettings {
  return {
    maxBodyBytes: config.maxBodyBytes,
    runTimeoutMaxSeconds: config.runTimeoutMaxSeconds,
    deprecatedEndpoints: config.deprecatedEndpoints,
    ui: config.ui,
    ...(config.corsOrigins.length === 0 ? {} : { corsOrigins: config.corsOrigins }),
    compression: config.compression,
    maxEventStreams: config.limits.maxEventStreams,
    maxJsonDepth: config.limits.maxJsonDepth,
  };
}

/** What the bundled server takes from the configuration besides the app's settings. */
export function httpServerSettings(
  config: FlowgateConfig,
): Pick<HttpServerOptions, 'host' | 'port' | 'headersTimeoutMs' | 'requestTimeoutMs' | 'maxConnections' | 'maxPipelinedRequests'> {
  return {
    host: config.host,
    port: config.port,
    headersTimeoutMs: config.limits.headersTimeoutMs,
    requestTimeoutMs: config.limits.requestTimeoutMs,
    maxConnections: config.limits.maxConnections,
    maxPipelinedRequests: config.limits.maxPipelinedRequests,
  };
}
