import { z } from 'zod';
import { envBoolean } from './envBoolean.js';

/** The remote-trace variables (README, Remote traces); shared by the API server's and the worker's configuration. */
export const remoteTraceEnv = {
  TRACE_S3_BUCKET: z.string().min(3).max(63).optional(),
  TRACE_S3_PREFIX: z.string().default(''),
  S3_ENDPOINT: z.url({ protocol: /^https?$/ }).optional(),
  S3_REGION: z.string().min(1).optional(),
  S3_FORCE_PATH_STYLE: envBoolean.optional(),
  AWS_REGION: z.string().min(1).optional(),
};

/**
 * The S3 store's options the environment sets (S3TraceStoreOptions accepts it as it is). Spelled out rather than
 * derived from the adapter's options: the configuration's types must not need @aws-sdk/client-s3, which is optional.
 */
export interface RemoteTraceConfig {
  bucket: string;
  prefix: string;
  region: string;
  endpoint?: string;
  forcePathStyle: boolean;
}

/** The S3 store's options, or undefined when no bucket is configured. Credentials come from the SDK's chain. */
export function remoteTraceConfig(value: {
  TRACE_S3_BUCKET?: string | undefined;
  TRACE_S3_PREFIX: string;
  S3_ENDPOINT?: string | undefined;
  S3_REGION?: string | undefined;
  S3_FORCE_PATH_STYLE?: boolean | undefined;
  AWS_REGION?: string | undefined;
}): RemoteTraceConfig | undefined {
  if (!value.TRACE_S3_BUCKET) return undefined;
  return {
    bucket: value.TRACE_S3_BUCKET,
    prefix: value.TRACE_S3_PREFIX,
    region: value.S3_REGION ?? value.AWS_REGION ?? 'us-east-1',
    ...(value.S3_ENDPOINT ? { endpoint: value.S3_ENDPOINT } : {}),
    // S3-compatible servers need path-style addressing; AWS itself prefers virtual-hosted style.
    forcePathStyle: value.S3_FORCE_PATH_STYLE ?? value.S3_ENDPOINT !== undefined,
  };
}
