import { z } from 'zod';
import type { TraceRecord } from '../domain/trace.js';

const failure = z.looseObject({ name: z.string(), message: z.string() });
const timestamp = z.iso.datetime();

/**
 * What a trace store's `read` throws when what it holds at a location is not a trace (a truncated file, JSON of another
 * shape). Not one of the errors a client is answered with: the trace log answers as for an unreadable file, without
 * `data` (core/useCases/fetchTrace.ts).
 */
export class CorruptTraceError extends Error {
  override name = 'CorruptTraceError';
  constructor(
    message: string,
    readonly location: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** What a trace file must hold to be served as one: the shape the trace log promises (docs/api.md, Trace log). */
const traceRecordShape = z.looseObject({
  workflowId: z.string(),
  workflowName: z.string(),
  input: z.unknown(),
  output: z.unknown(),
  error: failure.nullable(),
  startedAt: timestamp,
  closedAt: timestamp.nullable(),
  steps: z.array(
    z.looseObject({
      name: z.string(),
      kind: z.enum(['step', 'evaluator', 'internal_step']),
      input: z.unknown(),
      output: z.unknown(),
      error: failure.nullable(),
      startedAt: timestamp,
      endedAt: timestamp.nullable(),
      attempt: z.number().int().positive(),
    }),
  ),
});

/**
 * A stored trace's text as a TraceRecord, for every trace store. Throws CorruptTraceError, naming the location, when
 * the text is not JSON (a truncated file) or not a trace.
 */
export function parseTraceRecord(text: string, location: string): TraceRecord {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new CorruptTraceError(`the trace at ${location} is not valid JSON: ${(error as Error).message}`, location, { cause: error });
  }
  const parsed = traceRecordShape.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue && issue.path.length > 0 ? ` at ${issue.path.join('.')}` : '';
    throw new CorruptTraceError(`the trace at ${location} is not a trace${where}: ${issue?.message ?? 'unexpected shape'}`, location);
  }
  return value as TraceRecord;
}
