import { statSync } from 'node:fs';
import { mkdir, readFile, realpath, rename, stat, writeFile } from 'node:fs/promises';
import { dirname, isAbsolute, relative, resolve, sep } from 'node:path';
import type { TraceKey, TraceRecord } from '../../core/domain/trace.js';
import { traceRelativePath } from '../../core/trace/traceKey.js';
import { parseTraceRecord } from '../../core/trace/parseTrace.js';
import type { TraceStore } from '../../ports/traceStore.js';
import { isOnLocalFilesystem } from './localFilesystem.js';

export interface FsTraceStoreOptions {
  /** Directory the trace files live under (TRACE_DIR). Relative paths resolve against the working directory. */
  directory: string;
  /** Largest trace file `read` will load. @default 33554432 (32 MiB) */
  maxReadBytes?: number;
  /** Clock for the memory of recent writes. @default Date.now */
  now?: () => number;
}

/** Directories this store created or found, so a run's trace costs no mkdir (most runs share their directory). */
const MAX_KNOWN_DIRECTORIES = 10_000;
/**
 * Traces written this long ago are located without a stat: a run's result asks for its trace right after the run
 * wrote it, and a stat per result cost a fifth of the embedded engine's run throughput (bench figure 4).
 */
const RECENT_WRITE_MS = 10_000;
const MAX_RECENT_WRITES = 10_000;

/** Traces as JSON files: `<directory>/<workflowName>/<ISO start>_<workflowId>_<runId>.json`. */
export class FsTraceStore implements TraceStore {
  readonly kind = 'local' as const;
  readonly directory: string;
  private readonly maxReadBytes: number;
  private readonly now: () => number;
  private readonly knownDirectories = new Set<string>();
  /** The directory with its symbolic links resolved, once it exists. */
  private realDirectory: string | undefined;
  /** Path → when it was written; oldest first. */
  private readonly recentWrites = new Map<string, number>();
  /**
   * Whether the directory is on a local filesystem (found once). There `locate` stats in place: a few microseconds,
   * where the thread pool's stat woke two threads, about a sixth of a run-and-wait's CPU on Temporal
   * (docs/performance.md, figure 9). Elsewhere (a network mount) a stat may stall, and it stays off the event loop.
   */
  private localFilesystem: Promise<boolean | undefined> | undefined;

  constructor(options: FsTraceStoreOptions) {
    if (typeof options?.directory !== 'string' || options.directory.length === 0) {
      throw new TypeError('FsTraceStore: options.directory must be a non-empty path');
    }
    this.directory = resolve(options.directory);
    this.maxReadBytes = options.maxReadBytes ?? 32 * 1024 * 1024;
    this.now = options.now ?? Date.now;
  }

  pathOf(key: TraceKey): string {
    return resolve(this.directory, traceRelativePath(key));
  }

  async write(key: TraceKey, trace: TraceRecord): Promise<string> {
    const path = this.pathOf(key);
    // Write then rename, so a reader never sees half a file.
    const partial = `${path}.${process.pid}.partial`;
    const json = JSON.stringify(trace);
    const directory = dirname(path);
    if (!this.knownDirectories.has(directory)) await this.ensureDirectory(directory);
    try {
      await writeFile(partial, json);
    } catch (error) {
      // Someone removed the directory since (a clean-up of TRACE_DIR): make it again, once.
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      await this.ensureDirectory(directory);
      await writeFile(partial, json);
    }
    await rename(partial, path);
    this.recentWrites.delete(path);
    this.recentWrites.set(path, this.now());
    if (this.recentWrites.size > MAX_RECENT_WRITES) this.recentWrites.delete(this.recentWrites.keys().next().value!);
    return path;
  }

  async locate(key: TraceKey): Promise<string | undefined> {
    const path = this.pathOf(key);
    const writtenAt = this.recentWrites.get(path);
    if (writtenAt !== undefined && this.now() - writtenAt < RECENT_WRITE_MS) return path;
    this.localFilesystem ??= isOnLocalFilesystem(this.directory);
    const local = await this.localFilesystem;
    // Not made yet: told once it exists (what is mounted there then, not its parent's filesystem).
    if (local === undefined) this.localFilesystem = undefined;
    if (local) return statSync(path, { throwIfNoEntry: false })?.isFile() ? path : undefined;
    try {
      return (await stat(path)).isFile() ? path : undefined;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      // ENOTDIR: a file where a directory of the path should be, as the in-place stat reads it: no trace there.
      if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
      throw error;
    }
  }

  private async ensureDirectory(directory: string): Promise<void> {
    await mkdir(directory, { recursive: true });
    this.knownDirectories.add(directory);
    if (this.knownDirectories.size > MAX_KNOWN_DIRECTORIES) this.knownDirectories.delete(this.knownDirectories.values().next().value!);
  }

  async read(location: string): Promise<TraceRecord | undefined> {
    if (!this.isInside(this.directory, location)) return undefined;
    try {
      // A symbolic link inside the directory must not lead a reader out of it.
      this.realDirectory ??= await realpath(this.directory);
      // Read the resolved path itself, so a link swapped in after the check cannot redirect the read.
      const real = await realpath(location);
      if (!this.isInside(this.realDirectory, real)) return undefined;
      const info = await stat(real);
      if (!info.isFile() || info.size > this.maxReadBytes) return undefined;
      return parseTraceRecord(await readFile(real, 'utf8'), location);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      // Gone (a clean-up of TRACE_DIR): locate must stop naming it from the memory of recent writes.
      this.recentWrites.delete(resolve(location));
      return undefined;
    }
  }

  owns(location: string): boolean {
    return this.isInside(this.directory, location);
  }

  /** Whether the file is still there (one stat): a reader holding its record knows it was not cleaned up since. */
  async exists(location: string): Promise<boolean> {
    if (!this.isInside(this.directory, location)) return false;
    try {
      await stat(location);
      return true;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      this.recentWrites.delete(resolve(location));
      return false;
    }
  }

  /** Only files under the trace directory are ever read, whatever path a caller hands in. */
  private isInside(directory: string, location: string): boolean {
    const path = relative(directory, resolve(location));
    return path.length > 0 && !path.startsWith(`..${sep}`) && path !== '..' && !isAbsolute(path);
  }
}
