import { TRACE_MEMO_KEY, type TraceMemo } from '../protocol.js';
import type { Payload } from './proto.js';
import { decodeIfPossible } from './values.js';

/** The trace file the run's worker recorded in the memo as the run closed (sandbox/traceLocation.ts); undefined when none. */
export function localTracePathOf(fields: { [key: string]: Payload } | null | undefined): string | undefined {
  const memo = decodeIfPossible(fields?.[TRACE_MEMO_KEY]) as Partial<TraceMemo> | undefined;
  return typeof memo?.local === 'string' && memo.local.length > 0 ? memo.local : undefined;
}
