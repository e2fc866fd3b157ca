import type { RunDescription } from '../domain/run.js';
import type { TraceKey } from '../domain/trace.js';

export function traceKeyOf(run: RunDescription): TraceKey {
  return { workflowName: run.workflowName, workflowId: run.workflowId, runId: run.runId, startedAt: run.startedAt };
}

// File systems cap a name at 255 bytes; an encoded 1000-character id can be 9000.
const MAX_ENCODED_ID_LENGTH = 120;

/**
 * The path of a run's trace relative to a store's root: `<workflowName>/<ISO start time>_<workflowId>_<runId>.json`.
 * The run id is part of the name because a continue-as-new run can start in the same millisecond as the run
 * before it; the S3 key uses the same name. Path-unsafe characters in names and ids are percent-encoded, so a
 * workflow id can never climb out of the directory. Long ids are shortened: the run id keeps the name unique.
 */
export function traceRelativePath(key: TraceKey): string {
  const fileName = `${key.startedAt.toISOString()}_${shorten(encodeSegment(key.workflowId))}_${key.runId}.json`;
  return `${encodeSegment(key.workflowName)}/${fileName}`;
}

/** Cuts an encoded segment to its maximum length without splitting a `%XX` escape. */
function shorten(encoded: string): string {
  if (encoded.length <= MAX_ENCODED_ID_LENGTH) return encoded;
  const cut = encoded.slice(0, MAX_ENCODED_ID_LENGTH);
  const escapeStart = cut.lastIndexOf('%');
  return escapeStart > cut.length - 3 ? cut.slice(0, escapeStart) : cut;
}

function encodeSegment(value: string): string {
  // encodeURIComponent leaves "." alone; a leading dot would make hidden files or "..".
  return encodeURIComponent(value).replace(/^\./, '%2E');
}
