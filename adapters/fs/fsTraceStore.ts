import { mkdir, readFile, rename, stat, writeFile } from 'node:fs/promises';
import { dirname, isAbsolute, relative, resolve, sep } from 'node:path';
import type { TraceKey, TraceRecord } from '../../core/domain/trace.js';
import { traceRelativePath } from '../../core/trace/traceKey.js';
import type { TraceStore } from '../../ports/traceStore.js';

export interface FsTraceStoreOptions {
  /** Directory the trace files live under (TRACE_DIR). Relative paths resolve against the working directory. */
  directory: string;
  /** Largest trace file `read` will load. @default 33554432 (32 MiB) */
  maxReadBytes?: number;
}

/** Traces as JSON files: `<directory>/<workflowName>/<ISO start>_<workflowId>_<runId>.json`. */
export class FsTraceStore implements TraceStore {
  readonly kind = 'local' as const;
  readonly directory: string;
  private readonly maxReadBytes: number;

  constructor(options: FsTraceStoreOptions) {
    if (typeof options?.directory !== 'string' || options.directory.length === 0) {
      throw new TypeError('FsTraceStore: options.directory must be a non-empty path');
    }
    this.directory = resolve(options.directory);
    this.maxReadBytes = options.maxReadBytes ?? 32 * 1024 * 1024;
  }

  pathOf(key: TraceKey): string {
    return resolve(this.directory, traceRelativePath(key));
  }

  async write(key: TraceKey, trace: TraceRecord): Promise<string> {
    const path = this.pathOf(key);
    await mkdir(dirname(path), { recursive: true });
    // Write then rename, so a reader never sees half a file.
    const partial = `${path}.${process.pid}.partial`;
    await writeFile(partial, JSON.stringify(trace));
    await rename(partial, path);
    return path;
  }

  async locate(key: TraceKey): Promise<string | undefined> {
    const path = this.pathOf(key);
    try {
      return (await stat(path)).isFile() ? path : undefined;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
  }

  async read(location: string): Promise<TraceRecord | undefined> {
    if (!this.isInside(location)) return undefined;
    try {
      const info = await stat(location);
      if (!info.isFile() || info.size > this.maxReadBytes) return undefined;
      return JSON.parse(await readFile(location, 'utf8')) as TraceRecord;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
  }

  /** Only files under the trace directory are ever read, whatever path a caller hands in. */
  private isInside(location: string): boolean {
    const path = relative(this.directory, resolve(location));
    return path.length > 0 && !path.startsWith(`..${sep}`) && path !== '..' && !isAbsolute(path);
  }
}
