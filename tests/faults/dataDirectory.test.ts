// Fault: `flowgate serve` given a data directory it cannot use: one another flowgate holds, a file, a read-only
// directory (a mount in a private namespace: the test runs as root, whom permission bits do not stop), a database a
// newer flowgate wrote, a file that is not a database. Each must stop the process at once with one line on stderr
// and a non-zero exit, and leave every byte of the directory as it was.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { request } from 'undici';
import {
  embeddedServerEnv,
  privateMountsWork,
  readOnlyLauncher,
  seededRandom,
  serveUntilExit,
  startEmbeddedServer,
  tmpfsLauncher,
  type EmbeddedServer,
  type EmbeddedServerDirs,
} from './embeddedServers.js';
import type { NodeProcessOptions } from './processes.js';
import { SCHEMA_VERSION } from '../../adapters/embedded/store/sqlite/schema.js';

/**
 * A refusal comes before the server listens, with no wait for the holder (which never leaves here): the start-up's
 * module loading is what it takes, 2 to 3 s on a quiet machine, 8.5 s seen at load average 11 on 2 cores.
 */
const REFUSED_WITHIN_MS = 20_000;

interface Context {
  dir: string;
  server?: EmbeddedServer;
}

const refused = suite<Context>('flowgate serve refuses a data directory it cannot use, and changes nothing');

refused.before(async (context) => {
  context.dir = await mkdtemp(join(tmpdir(), 'fg-fault-datadir-'));
});

refused.after.each(async (context) => {
  await context.server?.stop('SIGKILL');
  context.server = undefined;
});

refused.after(async (context) => {
  await rm(context.dir, { recursive: true, force: true });
});

/** A directory of its own for each case: data, traces and step counts under it. */
async function dirsFor(context: Context, name: string): Promise<EmbeddedServerDirs> {
  const root = join(context.dir, name);
  const dirs = { dataDir: join(root, 'data'), traceDir: join(root, 'traces'), countDir: join(root, 'step-counts') };
  await mkdir(dirs.countDir, { recursive: true });
  return dirs;
}

/** Every file and directory under `root` with a digest of its bytes: equal snapshots mean nothing changed. */
async function snapshot(root: string): Promise<Record<string, string>> {
  const entries: Record<string, string> = {};
  const visit = async (path: string, name: string): Promise<void> => {
    const info = await stat(path);
    if (info.isDirectory()) {
      entries[`${name}/`] = `dir ${(info.mode & 0o7777).toString(8)}`;
      for (const child of (await readdir(path)).sort()) await visit(join(path, child), `${name}/${child}`);
    } else {
      entries[name] = `${info.size} bytes sha256 ${createHash('sha256').update(await readFile(path)).digest('hex')}`;
    }
  };
  await visit(root, '.');
  return entries;
}

/** The refusal: exit code, one line of stderr, in time; the line is returned for the case's own check. */
async function expectRefusal(env: Record<string, string>, options: NodeProcessOptions = {}): Promise<string> {
  const { exit, stderr, stdout, ms } = await serveUntilExit(env, options);
  const lines = stderr.split('\n').filter((line) => line !== '');
  assert.ok(exit.code !== 0 && exit.code !== null, `exit ${JSON.stringify(exit)}; stderr:\n${stderr}`);
  assert.is(exit.code, 2, 'a data directory that cannot be used is a configuration mistake (exit 2)');
  assert.is(lines.length, 1, `one line on stderr, got:\n${stderr}`);
  assert.ok(ms < REFUSED_WITHIN_MS, `refused after ${ms} ms`);
  assert.not.match(stdout, /flowgate listening/);
  process.stdout.write(`\n  exit ${exit.code} after ${ms} ms: ${lines[0]}`);
  return lines[0]!;
}

function escaped(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** A data directory holding a database from a first start that ran a run, stopped cleanly. */
async function usedDataDirectory(dirs: EmbeddedServerDirs): Promise<void> {
  const server = await startEmbeddedServer(dirs);
  try {
    const response = await request(`${server.url}/workflow/run`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ workflowName: 'two_counted_steps', workflowId: 'before', input: { ms: 0 } }),
    });
    const answer = (await response.body.json()) as { status: string };
    assert.is(response.statusCode, 200, JSON.stringify(answer));
    assert.is(answer.status, 'completed');
  } finally {
    assert.is((await server.stop('SIGTERM')).code, 0);
  }
}

refused('a second flowgate serve on a data directory in use exits at once, naming the pid that holds it; the first serves on', async (context) => {
  const dirs = await dirsFor(context, 'in-use');
  const first = (context.server = await startEmbeddedServer(dirs));
  const pidFile = await readFile(join(dirs.dataDir, 'flowgate.pid'), 'utf8');
  const line = await expectRefusal(embeddedServerEnv(dirs));
  assert.is(line, `flowgate serve: DATA_DIR ${dirs.dataDir} is in use by another flowgate (pid ${first.pid}): one process per data directory; stop it, or give another DATA_DIR`);

  assert.ok(first.isRunning());
  assert.is(await readFile(join(dirs.dataDir, 'flowgate.pid'), 'utf8'), pidFile, 'the holder’s pid file is left alone');
  const response = await request(`${first.url}/workflow/run`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ workflowName: 'two_counted_steps', workflowId: 'after-refusal', input: { ms: 0 } }),
  });
  const answer = (await response.body.json()) as { status: string };
  assert.is(response.statusCode, 200, JSON.stringify(answer));
  assert.is(answer.status, 'completed');
});

refused('DATA_DIR that is a file', async (context) => {
  const dirs = await dirsFor(context, 'file');
  await writeFile(dirs.dataDir, 'a file where the data directory should be\n');
  const before = await snapshot(join(context.dir, 'file'));
  const line = await expectRefusal(embeddedServerEnv(dirs));
  assert.is(line, `flowgate serve: DATA_DIR ${dirs.dataDir} is a file, not a directory: give a directory (it is made when missing)`);
  assert.equal(await snapshot(join(context.dir, 'file')), before);
});

refused('DATA_DIR on a read-only file system, empty or holding a database with runs: the line says the file system is read-only', async (context) => {
  if (!privateMountsWork(context.dir)) return;
  const empty = await dirsFor(context, 'read-only-empty');
  await mkdir(empty.dataDir);
  const line = await expectRefusal(embeddedServerEnv(empty), { launcher: tmpfsLauncher(empty.dataDir, 'ro') });
  assert.match(line, new RegExp(`^flowgate serve: DATA_DIR ${escaped(empty.dataDir)} cannot be written \\(.*read-only file system.*\\): give a directory this process can write$`));
  // A directory flowgate would have to make there.
  const below = { ...empty, dataDir: join(empty.dataDir, 'below') };
  const belowLine = await expectRefusal(embeddedServerEnv(below), { launcher: tmpfsLauncher(empty.dataDir, 'ro') });
  assert.match(belowLine, new RegExp(`^flowgate serve: DATA_DIR ${escaped(below.dataDir)} cannot be made \\(.*read-only file system.*\\): give a directory this process can write$`));

  const used = await dirsFor(context, 'read-only-used');
  await usedDataDirectory(used);
  const before = await snapshot(used.dataDir);
  const usedLine = await expectRefusal(embeddedServerEnv(used), { launcher: readOnlyLauncher(used.dataDir) });
  assert.match(usedLine, new RegExp(`^flowgate serve: DATA_DIR ${escaped(used.dataDir)} cannot be written \\(.*read-only file system.*\\): give a directory this process can write$`));
  assert.equal(await snapshot(used.dataDir), before);
});

refused('a database written by a newer flowgate (user_version 99) is refused and left byte for byte', async (context) => {
  const dirs = await dirsFor(context, 'newer');
  await usedDataDirectory(dirs);
  const path = join(dirs.dataDir, 'flowgate.db');
  const db = new DatabaseSync(path);
  db.exec('PRAGMA user_version = 99');
  db.close();
  const before = await snapshot(dirs.dataDir);
  const line = await expectRefusal(embeddedServerEnv(dirs));
  assert.is(line, `flowgate serve: ${path} was written by a newer flowgate (schema version 99; this flowgate reads up to ${SCHEMA_VERSION}): upgrade flowgate, or give another DATA_DIR; the database is left as it is`);
  assert.equal(await snapshot(dirs.dataDir), before);
});

refused('a flowgate.db that is not a database (garbage bytes) is refused and left byte for byte', async (context) => {
  const dirs = await dirsFor(context, 'corrupt');
  await mkdir(dirs.dataDir);
  const random = seededRandom(26);
  await writeFile(join(dirs.dataDir, 'flowgate.db'), Buffer.from(Array.from({ length: 16_384 }, () => Math.floor(random() * 256))));
  const before = await snapshot(dirs.dataDir);
  const line = await expectRefusal(embeddedServerEnv(dirs));
  assert.match(line, new RegExp(`^flowgate serve: ${escaped(join(dirs.dataDir, 'flowgate.db'))} is not a flowgate database or is damaged \\(.+\\); it was left as it is: move it away or give another DATA_DIR$`));
  assert.equal(await snapshot(dirs.dataDir), before);
});

refused.run();
