import type { TraceKey, TraceRecord } from '../core/domain/trace.js';
import { token } from './token.js';

/**
 * One place traces are kept: the local directory (adapters/fs) or an object store (adapters/s3). A run's trace is
 * identified by its TraceKey in every store; a location is the store's own address of it (a path, an s3:// URI).
 */
export interface TraceStore {
  readonly kind: 'local' | 'remote';
  /** Writes the trace; resolves with its location. */
  write(key: TraceKey, trace: TraceRecord): Promise<string>;
  /** The location of an existing trace, or `undefined` when there is none. */
  locate(key: TraceKey): Promise<string | undefined>;
  /**
   * The trace at a location this store returned, or `undefined` when it is gone or refused (too large, not the
   * store's). Throws CorruptTraceError (core/trace/parseTrace.ts) when what is stored there is not a trace.
   */
  read(location: string): Promise<TraceRecord | undefined>;
  /**
   * Whether `location` lies where this store keeps traces, so that `locate` speaks for it. A local store tells its own
   * directory from a path on another host's (a worker's TRACE_DIR elsewhere). @default never
   */
  owns?: ((location: string) => boolean) | undefined;
  /**
   * Whether a trace is still at `location`, asked more cheaply than reading it (a stat): a record read before is only
   * served again while this holds. Stores whose traces are never removed may leave it out.
   */
  exists?: ((location: string) => Promise<boolean>) | undefined;
}

export interface TraceStores {
  local?: TraceStore;
  remote?: TraceStore;
}

export const TRACE_STORES = token<TraceStores>('TraceStores');
