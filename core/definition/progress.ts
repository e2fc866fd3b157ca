/** Most bytes of one progress event's fields, as JSON: progress travels in heartbeats, not in history. */
export const MAX_PROGRESS_FIELDS_BYTES = 4096;
/** How many of a step's latest progress events the engine keeps for followers (docs/progress.md). */
export const PROGRESS_BUFFER_SIZE = 20;

/**
 * A `progress(fields)` call that cannot be published: fields that are not a JSON object, or too large. A mistake in
 * the step's code, so a step failing with it is not retried.
 */
export class InvalidProgressError extends TypeError {
  override name = 'InvalidProgressError';
  readonly nonRetryable = true;
}

/** What a step attempt published, numbered per step call (the numbers go on across retries). */
export interface ProgressRecord {
  /** 1, 2, 3… for one step call. */
  seq: number;
  attempt: number;
  /** ISO 8601 UTC, from the clock of the process running the step. */
  time: string;
  fields: Record<string, unknown>;
}

/** A runtime that runs step code in this process and carries its progress to followers. */
export interface ProgressSink {
  /** False when the call is not made inside one of this runtime's step attempts. */
  publish(fields: Record<string, unknown>): boolean;
}

// A Symbol.for key on globalThis, so two copies of this module (built and source) still share the sinks.
const SINKS = Symbol.for('flowgate.progressSinks');
type Registry = { [SINKS]?: Set<ProgressSink> };
const sinks = (): Set<ProgressSink> => ((globalThis as Registry)[SINKS] ??= new Set());

/** Installs a sink; returns the function that removes it. */
export function addProgressSink(sink: ProgressSink): () => void {
  sinks().add(sink);
  return () => sinks().delete(sink);
}

/**
 * Reports progress from step or evaluator code: followers of the run's history stream get it as a `progress`
 * event. It is not written to the engine's history, and a follower may miss some (docs/progress.md). Outside a
 * step attempt there is nobody to tell: the call returns false.
 */
export function progress(fields: Record<string, unknown>): boolean {
  const copy = checkedFields(fields);
  for (const sink of sinks()) if (sink.publish(copy)) return true;
  return false;
}

/** A JSON copy of `fields`, so later changes by the caller do not change what was published. */
function checkedFields(fields: unknown): Record<string, unknown> {
  if (typeof fields !== 'object' || fields === null || Array.isArray(fields)) {
    throw new InvalidProgressError('progress: fields must be a plain object');
  }
  let text: string;
  try {
    text = JSON.stringify(fields);
  } catch (error) {
    throw new InvalidProgressError(`progress: fields must be JSON (${(error as Error).message})`);
  }
  const bytes = utf8Length(text);
  if (bytes > MAX_PROGRESS_FIELDS_BYTES) {
    throw new InvalidProgressError(`progress: fields are ${bytes} bytes as JSON; at most ${MAX_PROGRESS_FIELDS_BYTES} are allowed`);
  }
  return JSON.parse(text) as Record<string, unknown>;
}

/** The buffer a step call keeps: the latest PROGRESS_BUFFER_SIZE records, oldest first. */
export function appendBounded(buffer: readonly ProgressRecord[], record: ProgressRecord): ProgressRecord[] {
  const next = [...buffer, record];
  return next.length > PROGRESS_BUFFER_SIZE ? next.slice(next.length - PROGRESS_BUFFER_SIZE) : next;
}

/** Bytes of `text` as UTF-8 (no TextEncoder: this module is bundled into Temporal's workflow sandbox too). */
function utf8Length(text: string): number {
  let bytes = 0;
  for (const char of text) {
    const code = char.codePointAt(0) ?? 0;
    bytes += code < 0x80 ? 1 : code < 0x800 ? 2 : code < 0x10000 ? 3 : 4;
  }
  return bytes;
}
