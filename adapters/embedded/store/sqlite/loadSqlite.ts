import type * as Sqlite from 'node:sqlite';

let loaded: Promise<typeof Sqlite> | undefined;

/**
 * Node's built-in SQLite, loaded only when the durable store is opened (the memory store never loads it). Node 22
 * marks the module experimental and says so on stderr when it loads; flowgate relies on it knowingly (Node 24 no
 * longer warns), so that one notice is not printed. Every other warning is.
 */
export function loadSqlite(): Promise<typeof Sqlite> {
  return (loaded ??= importQuietly());
}

async function importQuietly(): Promise<typeof Sqlite> {
  const emitWarning = process.emitWarning;
  process.emitWarning = function (this: unknown, warning: string | Error, ...rest: unknown[]): void {
    const kind = typeof rest[0] === 'string' ? rest[0] : (rest[0] as { type?: unknown } | undefined)?.type;
    const text = typeof warning === 'string' ? warning : warning.message;
    if (kind === 'ExperimentalWarning' && /\bSQLite\b/.test(text)) return;
    return (emitWarning as (...args: unknown[]) => void).call(process, warning, ...rest);
  } as typeof process.emitWarning;
  try {
    return await import('node:sqlite');
  } catch (error) {
    loaded = undefined;
    throw new Error(`the durable embedded engine needs Node.js 22.13 or later (node:sqlite); this is Node.js ${process.versions.node}`, { cause: error });
  } finally {
    process.emitWarning = emitWarning;
  }
}
