import { watch, type FSWatcher } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import type { AccessKey } from '../../core/domain/access.js';
import type { AccessKeyRegistry } from '../../ports/accessKeys.js';
import type { Logger } from '../../ports/logger.js';
import { AccessKeyFileError, parseKeyFile } from './keyFile.js';
import { KeyTable, type HashedKey, type ReservedKey } from './keyTable.js';

export interface KeyFileRegistryOptions {
  /** API_KEYS_FILE. */
  path: string;
  /** Keys from elsewhere (API_AUTH_TOKEN, createFlowgate's apiKeys) that live beside the file's: their ids and secrets are taken. */
  reserved?: readonly ReservedKey[] | undefined;
  logger: Logger;
  now?: () => Date;
  /** Quiet time after the last change of the file before it is read (editors write in several steps). @default 100 */
  debounceMs?: number;
}

/** How a reload went: `unchanged` when the file holds what was loaded last (a change event that changed nothing). */
export type ReloadOutcome = 'reloaded' | 'unchanged' | 'kept';

/**
 * The keys of API_KEYS_FILE (docs/security.md), read at start (a file that cannot be used is AccessKeyFileError: the
 * server does not start) and again when the file changes or `reload()` is called (SIGHUP). A reload that fails keeps
 * the previous keys and logs one error line; one that succeeds logs one line with the ids (never a secret or a hash).
 *
 * The directory is watched rather than the file: editors and `mv` replace the file (write a new one, rename it over),
 * and mounted volumes swap a symlink, after which a watch on the old file sees nothing more. Events are debounced, so
 * the half-written states in between are not read.
 */
export class KeyFileRegistry implements AccessKeyRegistry {
  private table: KeyTable;
  private loadedText: string;
  private watcher: FSWatcher | undefined;
  private pending: NodeJS.Timeout | undefined;
  private reloading: Promise<ReloadOutcome> | undefined;
  private closed = false;

  private constructor(
    private readonly options: KeyFileRegistryOptions & { path: string },
    loaded: { text: string; keys: HashedKey[] },
  ) {
    this.loadedText = loaded.text;
    this.table = this.tableOf(loaded.keys);
  }

  /** Reads the file and starts watching it; AccessKeyFileError when it cannot be read or used. */
  static async open(options: KeyFileRegistryOptions): Promise<KeyFileRegistry> {
    const path = resolve(options.path);
    const registry = new KeyFileRegistry({ ...options, path }, await readKeys(path, options.reserved));
    registry.watch();
    options.logger.info('access keys loaded', { file: path, keys: registry.ids() });
    return registry;
  }

  lookup(secret: string): AccessKey | undefined {
    return this.table.lookup(secret);
  }

  /** The ids of the keys in force (the reserved ones and the file's). */
  ids(): string[] {
    return this.table.keys.map(({ key }) => key.id);
  }

  /** Reads the file again (SIGHUP); one at a time, so a slow read never overwrites a newer one. */
  reload(why: 'change' | 'signal' = 'signal'): Promise<ReloadOutcome> {
    const previous = this.reloading ?? Promise.resolve<ReloadOutcome>('unchanged');
    const next = previous.then(() => this.readAgain(why));
    this.reloading = next;
    return next;
  }

  close(): void {
    this.closed = true;
    clearTimeout(this.pending);
    this.watcher?.close();
  }

  private async readAgain(why: 'change' | 'signal'): Promise<ReloadOutcome> {
    const { path, logger } = this.options;
    try {
      const text = await readFile(path, 'utf8');
      // A change event that changed nothing (a touch, a second event of one save) is not worth a line.
      if (why === 'change' && text === this.loadedText) return 'unchanged';
      const keys = parseKeyFile(text, { source: `API_KEYS_FILE ${path}`, reserved: this.options.reserved });
      this.table = this.tableOf(keys);
      this.loadedText = text;
      logger.info('access keys reloaded', { file: path, keys: this.ids(), trigger: why });
      return 'reloaded';
    } catch (error) {
      const message = error instanceof AccessKeyFileError ? error.message : `API_KEYS_FILE ${path}: cannot be read (${(error as Error).message})`;
      logger.error('access keys not reloaded; the previous keys stay', { file: path, error: message, keys: this.ids(), trigger: why });
      return 'kept';
    }
  }

  private tableOf(keys: HashedKey[]): KeyTable {
    return new KeyTable([...(this.options.reserved ?? []), ...keys], this.options.now);
  }

  private watch(): void {
    const { path, logger } = this.options;
    try {
      // Any change in the directory, not only one named like the file: a Kubernetes ConfigMap or Secret volume swaps a
      // `..data` symlink the file points through, and the events name only that. A read that finds the text it
      // loaded last changes nothing and logs nothing, so other files' changes cost one read, after the debounce.
      this.watcher = watch(dirname(path), { persistent: false }, () => this.scheduleReload());
      this.watcher.on('error', (error) => logger.warn('access keys: the key file is no longer watched; SIGHUP still reloads it', { file: path, error: error.message }));
    } catch (error) {
      logger.warn('access keys: the key file cannot be watched; SIGHUP reloads it', { file: path, error: (error as Error).message });
    }
  }

  private scheduleReload(): void {
    if (this.closed) return;
    clearTimeout(this.pending);
    this.pending = setTimeout(() => void this.reload('change'), this.options.debounceMs ?? 100);
    this.pending.unref();
  }
}

async function readKeys(path: string, reserved: readonly ReservedKey[] | undefined): Promise<{ text: string; keys: HashedKey[] }> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new AccessKeyFileError(`API_KEYS_FILE ${path}: cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
  }
  return { text, keys: parseKeyFile(text, { source: `API_KEYS_FILE ${path}`, reserved }) };
}
