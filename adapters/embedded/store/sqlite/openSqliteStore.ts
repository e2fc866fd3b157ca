import { accessSync, closeSync, constants, existsSync, mkdirSync, openSync, readFileSync, statSync, writeFileSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import type { DatabaseSync } from 'node:sqlite';
import { DataDirectoryError, DataDirectoryInUseError } from './dataDirErrors.js';
import { loadSqlite } from './loadSqlite.js';
import { prepareSchema, SCHEMA_VERSION } from './schema.js';
import { SqliteStore, type SqliteStoreOptions } from './sqliteStore.js';

/** The database file in the data directory. */
export const DATABASE_FILE = 'flowgate.db';
/** The pid of the process holding the data directory: what a second one names when it is refused. */
const PID_FILE = 'flowgate.pid';

export interface OpenSqliteStoreOptions extends SqliteStoreOptions {
  /** DATA_DIR: made when missing. */
  dataDir: string;
  /**
   * DATA_SYNC: `full` makes every commit survive a power loss (fsync of the write-ahead log on each commit); `normal`
   * survives a crash or kill of the process, and may lose the last commits to a power loss. @default 'full'
   */
  sync?: 'full' | 'normal';
}

/**
 * Opens the durable store on a data directory, which this process then holds alone until the store is closed (SQLite's
 * exclusive locking: a second process is refused at once, and a process that dies releases it with its file locks).
 * Every way the directory cannot be used is one DataDirectoryError line, and nothing in it is changed: a database
 * written by a newer flowgate is never migrated down, one that is not a database is never overwritten.
 */
export async function openSqliteStore(options: OpenSqliteStoreOptions): Promise<SqliteStore> {
  const dataDir = resolve(options.dataDir);
  prepareDirectory(dataDir);
  const { DatabaseSync } = await loadSqlite();
  const path = join(dataDir, DATABASE_FILE);
  let db: DatabaseSync;
  try {
    createPrivately(path);
    db = new DatabaseSync(path, { timeout: 0 });
  } catch (error) {
    throw unusable(dataDir, path, error);
  }
  try {
    db.exec('PRAGMA locking_mode = EXCLUSIVE');
    // The first write takes the exclusive lock and keeps it: a second flowgate on this directory is refused here.
    db.exec('BEGIN IMMEDIATE');
    const check = prepareSchema(db);
    if (check.kind === 'newer') {
      db.exec('ROLLBACK');
      throw new DataDirectoryError(
        `${path} was written by a newer flowgate (schema version ${check.version}; this flowgate reads up to ${SCHEMA_VERSION}): upgrade flowgate, or give another DATA_DIR; the database is left as it is`,
      );
    }
    if (check.kind === 'foreign') {
      db.exec('ROLLBACK');
      throw new DataDirectoryError(`${path} is not a flowgate database (it holds another program's tables); it was left as it is: move it away or give another DATA_DIR`);
    }
    db.exec('COMMIT');
    db.exec('PRAGMA journal_mode = WAL');
    db.exec(`PRAGMA synchronous = ${options.sync === 'normal' ? 'NORMAL' : 'FULL'}`);
    writePidFile(dataDir);
  } catch (error) {
    try {
      db.close();
    } catch {
      // Closing is best effort: the error that brought us here is what the user needs.
    }
    if (error instanceof DataDirectoryError) throw error;
    throw unusable(dataDir, path, error);
  }
  const store = new SqliteStore(db, options);
  const close = store.close.bind(store);
  store.close = () => {
    close();
    rmSync(join(dataDir, PID_FILE), { force: true });
  };
  return store;
}

/**
 * Names this process as the directory's holder (a second flowgate's refusal names it). Written under the database's
 * exclusive lock, so the file is this process's to write; one that cannot be written refuses the directory, and an
 * empty file a full disk left is removed.
 */
function writePidFile(dataDir: string): void {
  const pidFile = join(dataDir, PID_FILE);
  try {
    writeFileSync(pidFile, `${process.pid}\n`);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EISDIR') rmSync(pidFile, { force: true });
    throw new DataDirectoryError(`DATA_DIR ${dataDir} cannot be written: ${pidFile} (${describe(error)}): give a directory this process can write, with room on its disk`);
  }
}

/** Makes the directory, or says in one line why it cannot be one flowgate writes to. */
function prepareDirectory(dataDir: string): void {
  try {
    // Made for this process's user alone: the database holds every run's input, result and history. Parents made on
    // the way get the usual mode; a directory that exists keeps the one it has.
    if (!existsSync(dataDir)) {
      mkdirSync(dirname(dataDir), { recursive: true });
      mkdirSync(dataDir, { mode: PRIVATE_DIRECTORY });
    }
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') throw new DataDirectoryError(`DATA_DIR ${dataDir} is a file, not a directory: give a directory (it is made when missing)`);
    if (code === 'ENOTDIR') throw new DataDirectoryError(`DATA_DIR ${dataDir} cannot be made: ${fileOnTheWay(dataDir)} is a file, not a directory`);
    throw new DataDirectoryError(`DATA_DIR ${dataDir} cannot be made (${describe(whyNotMade(dataDir, error))}): give a directory this process can write`);
  }
  if (!statSync(dataDir).isDirectory()) throw new DataDirectoryError(`DATA_DIR ${dataDir} is a file, not a directory: give a directory (it is made when missing)`);
  // SQLite's own refusal of a read-only directory reads "unable to open database file" or "disk I/O error".
  try {
    accessSync(dataDir, constants.W_OK);
  } catch (error) {
    throw new DataDirectoryError(`DATA_DIR ${dataDir} cannot be written (${describe(error)}): give a directory this process can write`);
  }
}

const PRIVATE_DIRECTORY = 0o700;
const PRIVATE_FILE = 0o600;

/**
 * A new database file is made readable by this process's user alone before SQLite opens it (SQLite would make it by
 * the umask, often readable by everyone); SQLite gives its WAL and shared-memory files the database file's mode. An
 * existing file keeps its mode.
 */
function createPrivately(path: string): void {
  try {
    closeSync(openSync(path, 'wx', PRIVATE_FILE));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
}

/** DATA_DIR's nearest parent that exists (the root at the latest). */
function nearestExistingParent(dataDir: string): string {
  let parent = dirname(dataDir);
  while (!existsSync(parent) && dirname(parent) !== parent) parent = dirname(parent);
  return parent;
}

/** The file among DATA_DIR's parents that stops it being made (or DATA_DIR itself). */
function fileOnTheWay(dataDir: string): string {
  const parent = nearestExistingParent(dataDir);
  return existsSync(parent) && !statSync(parent).isDirectory() ? parent : dataDir;
}

/**
 * Node's recursive mkdir reports some refusals (a read-only file system) as ENOENT, as if a parent were missing: the
 * nearest existing directory says why it takes no new one.
 */
function whyNotMade(dataDir: string, error: unknown): unknown {
  if ((error as NodeJS.ErrnoException).code !== 'ENOENT') return error;
  try {
    accessSync(nearestExistingParent(dataDir), constants.W_OK);
  } catch (refusal) {
    return refusal;
  }
  return error;
}

/** Why SQLite would not open or lock the database, as one line. */
function unusable(dataDir: string, path: string, error: unknown): DataDirectoryError {
  const code = (error as { errcode?: number; code?: string }).errcode;
  const message = describe(error);
  // SQLITE_BUSY (5) and its extended codes: the lock is held.
  if (code !== undefined && (code & 0xff) === 5) {
    const pid = holder(dataDir);
    return new DataDirectoryInUseError(
      `DATA_DIR ${dataDir} is in use by another flowgate${pid ? ` (pid ${pid})` : ''}: one process per data directory; stop it, or give another DATA_DIR`,
      pid,
    );
  }
  // SQLITE_NOTADB (26), SQLITE_CORRUPT (11): never overwritten.
  if (code !== undefined && ((code & 0xff) === 26 || (code & 0xff) === 11)) {
    return new DataDirectoryError(`${path} is not a flowgate database or is damaged (${message}); it was left as it is: move it away or give another DATA_DIR`);
  }
  // SQLITE_READONLY (8), SQLITE_CANTOPEN (14), SQLITE_IOERR (10), SQLITE_PERM (3): the directory was found writable
  // (prepareDirectory), so the database file itself may be what refuses.
  if (code !== undefined && [8, 14, 10, 3].includes(code & 0xff)) {
    const file = databaseFileRefusal(path);
    if (file !== undefined) return new DataDirectoryError(file);
    return new DataDirectoryError(`DATA_DIR ${dataDir} cannot be written (${message}): give a directory this process can write`);
  }
  return new DataDirectoryError(`${path} cannot be opened (${message})`);
}

/** Why the database file itself cannot be written, when it is the file: a directory in its place, or no write access. */
function databaseFileRefusal(path: string): string | undefined {
  if (!existsSync(path)) return undefined;
  if (statSync(path).isDirectory()) return `${path} is a directory, not a database: move it away or give another DATA_DIR`;
  try {
    accessSync(path, constants.W_OK);
    return undefined;
  } catch (error) {
    return `${path} cannot be written by this process (${describe(error)}); it was left as it is: give this process write access to it, or give another DATA_DIR`;
  }
}

function holder(dataDir: string): number | undefined {
  try {
    const pid = Number.parseInt(readFileSync(join(dataDir, PID_FILE), 'utf8'), 10);
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

function describe(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).split('\n')[0]!;
}
