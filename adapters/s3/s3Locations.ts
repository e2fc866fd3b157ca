import type { TraceKey } from '../../core/domain/trace.js';
import { traceRelativePath } from '../../core/trace/traceKey.js';

/**
 * The object key of a run's trace: `<prefix>/<workflowName>/<YYYY>/<MM>/<DD>/<ISO start>_<workflowId>_<runId>.json`.
 * The file name is the local store's (traceKey.ts encodes names and ids, so neither can add a `/` of its own);
 * the date folders (UTC, from the start time) keep listings of one day cheap in buckets with millions of traces.
 */
export function traceObjectKey(prefix: string, key: TraceKey): string {
  const relative = traceRelativePath(key);
  const slash = relative.indexOf('/');
  const workflowFolder = relative.slice(0, slash);
  const fileName = relative.slice(slash + 1);
  const iso = key.startedAt.toISOString();
  const datePath = `${iso.slice(0, 4)}/${iso.slice(5, 7)}/${iso.slice(8, 10)}`;
  return `${prefix ? `${prefix}/` : ''}${workflowFolder}/${datePath}/${fileName}`;
}

/** Trims the slashes people put around prefixes, so `traces/`, `/traces` and `traces` name the same folder. */
export function normalizePrefix(prefix: string): string {
  return prefix.replace(/^\/+|\/+$/g, '');
}

export function s3Uri(bucket: string, objectKey: string): string {
  return `s3://${bucket}/${objectKey}`;
}

/** The object key of an `s3://bucket/key` location in the given bucket; `undefined` for anything else. */
export function objectKeyOf(location: string, bucket: string): string | undefined {
  const expectedStart = `s3://${bucket}/`;
  if (!location.startsWith(expectedStart)) return undefined;
  const objectKey = location.slice(expectedStart.length);
  return objectKey.length > 0 ? objectKey : undefined;
}

/**
 * `<prefix>/.claim-checks/`: every claim-check object lives under it, so one lifecycle rule covers them all. A workflow
 * name cannot start with a dot, so no trace folder is ever named like it and such a rule never touches a trace.
 */
export function claimCheckPrefix(prefix: string): string {
  const normalized = normalizePrefix(prefix);
  return `${normalized ? `${normalized}/` : ''}.claim-checks/`;
}

/** A claim-check object's key: the folder, then the SHA-256 of its content. */
export function claimCheckObjectKey(keyPrefix: string, sha256Hex: string): string {
  return `${keyPrefix}${sha256Hex}`;
}
