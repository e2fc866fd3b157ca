import type { TraceKey, TraceRecord } from '../../core/domain/trace.js';
import { traceRelativePath } from '../../core/trace/traceKey.js';
import type { TraceStore } from '../../ports/traceStore.js';

/**
 * Traces kept in memory (flowgate/testing): nothing written to disk, every trace readable at once. Locations are
 * `memory:<workflowName>/<ISO start>_<workflowId>_<runId>.json`, the file store's relative path.
 */
export class MemoryTraceStore implements TraceStore {
  readonly kind = 'local' as const;
  private readonly traces = new Map<string, TraceRecord>();

  async write(key: TraceKey, trace: TraceRecord): Promise<string> {
    const location = this.locationOf(key);
    // A copy: what the test reads is what was written, whatever the engine does with its objects afterwards.
    this.traces.set(location, structuredClone(trace));
    return location;
  }

  async locate(key: TraceKey): Promise<string | undefined> {
    const location = this.locationOf(key);
    return this.traces.has(location) ? location : undefined;
  }

  async read(location: string): Promise<TraceRecord | undefined> {
    const trace = this.traces.get(location);
    return trace === undefined ? undefined : structuredClone(trace);
  }

  /** Every trace written so far, oldest first. */
  all(): TraceRecord[] {
    return [...this.traces.values()].map((trace) => structuredClone(trace));
  }

  private locationOf(key: TraceKey): string {
    return `memory:${traceRelativePath(key)}`;
  }
}
