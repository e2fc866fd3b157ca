import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { step, workflow } from '../../../core/definition/index.js';
import { EmbeddedEngine } from '../../../adapters/embedded/index.js';
import { loadSqlite } from '../../../adapters/embedded/store/sqlite/loadSqlite.js';
import { DATABASE_FILE, openSqliteStore } from '../../../adapters/embedded/store/sqlite/openSqliteStore.js';
import { prepareSchema, SCHEMA_VERSION } from '../../../adapters/embedded/store/sqlite/schema.js';
import { SqliteStore } from '../../../adapters/embedded/store/sqlite/sqliteStore.js';
import { DataDirectoryError, DataDirectoryInUseError } from '../../../adapters/embedded/store/sqlite/dataDirErrors.js';
import { durableHarness, IDEMPOTENCY_RETENTION_MS, RETENTION_MS } from './durableSupport.js';
import { flush, SequentialIds } from './support.js';
import { ManualClock } from '../../support/manualClock.js';
import { rejection } from '../../support/rejection.js';
import { eventually } from '../../support/eventually.js';
import { CapturingLogger } from '../../support/logLines.js';

/** The durable store on its own: its data directory, its writes failing, retention, the callback outbox. */

const echo = workflow({ name: 'echo', description: 'Returns its input', inputSchema: z.unknown(), outputSchema: z.unknown(), fn: async (input) => input });
const slowly = step({ name: 'slowly', fn: async (text: string) => text.toUpperCase() });
const sleepy = workflow({
  name: 'sleepy',
  description: 'Sleeps a minute, then shouts',
  inputSchema: z.object({ text: z.string() }),
  outputSchema: z.unknown(),
  fn: async ({ text }, ctx) => {
    await ctx.sleep(60_000);
    return slowly(text);
  },
});

function tempDir(): string {
  return mkdtempSync(join(tmpdir(), 'flowgate-store-'));
}

const storeOptions = (dataDir: string, clock = new ManualClock()) => ({
  dataDir,
  clock,
  logger: new CapturingLogger(),
  retentionMs: RETENTION_MS,
  idempotencyRetentionMs: IDEMPOTENCY_RETENTION_MS,
});

test('one process per data directory: a second store on it is refused, naming the pid that holds it; closing frees it', async () => {
  const dataDir = tempDir();
  try {
    const first = await openSqliteStore(storeOptions(dataDir));
    const error = await rejection(openSqliteStore(storeOptions(dataDir)));
    assert.instance(error, DataDirectoryInUseError);
    assert.is((error as unknown as DataDirectoryInUseError).pid, process.pid);
    assert.match((error as Error).message, new RegExp(`is in use by another flowgate \\(pid ${process.pid}\\)`));
    first.close();
    const again = await openSqliteStore(storeOptions(dataDir));
    again.close();
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test('a DATA_DIR that is a file, a database that is not one, a database of a newer flowgate: one line each, nothing changed', async () => {
  const dataDir = tempDir();
  try {
    const file = join(dataDir, 'a-file');
    writeFileSync(file, 'not a directory');
    const notDirectory = await rejection(openSqliteStore(storeOptions(file)));
    assert.instance(notDirectory, DataDirectoryError);
    assert.match((notDirectory as Error).message, /is a file, not a directory/);

    const garbage = join(dataDir, 'garbage');
    const bytes = Buffer.from('this is not a database '.repeat(300));
    await openSqliteStore(storeOptions(garbage)).then((store) => store.close());
    writeFileSync(join(garbage, DATABASE_FILE), bytes);
    const corrupt = await rejection(openSqliteStore(storeOptions(garbage)));
    assert.instance(corrupt, DataDirectoryError);
    assert.match((corrupt as Error).message, /is not a flowgate database or is damaged .*it was left as it is/);
    assert.ok(readFileSync(join(garbage, DATABASE_FILE)).equals(bytes), 'the file was not overwritten');

    const newer = join(dataDir, 'newer');
    const made = await openSqliteStore(storeOptions(newer));
    made.close();
    const { DatabaseSync } = await loadSqlite();
    const raw = new DatabaseSync(join(newer, DATABASE_FILE));
    raw.exec('PRAGMA user_version = 99');
    raw.close();
    const before = readFileSync(join(newer, DATABASE_FILE));
    const refused = await rejection(openSqliteStore(storeOptions(newer)));
    assert.instance(refused, DataDirectoryError);
    assert.match((refused as Error).message, `was written by a newer flowgate (schema version 99; this flowgate reads up to ${SCHEMA_VERSION})`);
    assert.ok(readFileSync(join(newer, DATABASE_FILE)).equals(before), 'never migrated down');
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test('a data directory of schema version 1 opens migrated: its runs as they were, starters and schedules recorded and filtered from then on', async () => {
  const h = await durableHarness([sleepy]);
  try {
    const before = await h.run(sleepy, { text: 'kept' }, 'before-upgrade');
    h.engine.close();
    // The database as the flowgate before the starter column wrote it.
    const { DatabaseSync } = await loadSqlite();
    const raw = new DatabaseSync(join(h.dataDir, DATABASE_FILE));
    raw.exec(
      'DROP INDEX runs_by_starter; DROP INDEX runs_by_schedule; DROP TABLE schedules; ' +
        'ALTER TABLE runs DROP COLUMN started_by; ALTER TABLE runs DROP COLUMN schedule_id; PRAGMA user_version = 1',
    );
    raw.close();
    await h.restart();
    const kept = await h.engine.describe(before);
    assert.is(kept.status, 'running');
    assert.not.ok('startedBy' in kept, 'a run from before names no starter');
    const after = await h.engine.start({ workflowName: 'sleepy', catalog: 'main', workflowId: 'after-upgrade', input: { text: 'new' }, startedBy: 'ci' });
    assert.is((await h.engine.describe(after)).startedBy, 'ci');
    const listed = await h.engine.listRuns({ startedBy: 'ci', limit: 10 });
    assert.equal(listed.runs.map((run) => run.workflowId), ['after-upgrade']);
    const scheduled = await h.engine.start({ workflowName: 'sleepy', catalog: 'main', workflowId: 'nightly-2026-01-01T00:00:00Z', input: { text: 's' }, scheduleId: 'nightly' });
    assert.equal((await h.engine.listRuns({ scheduleId: 'nightly', limit: 10 })).runs.map((run) => run.workflowId), [scheduled.workflowId]);
    await h.restart();
    assert.is((await h.engine.describe(after)).startedBy, 'ci', 'kept across a restart');
    assert.is((await h.outcome(before)).run.status, 'completed', 'the run from before finishes');
    h.engine.close();
    const check = new DatabaseSync(join(h.dataDir, DATABASE_FILE), { readOnly: true });
    assert.is((check.prepare('PRAGMA user_version').get() as { user_version: number }).user_version, SCHEMA_VERSION);
    assert.ok(check.prepare("SELECT name FROM sqlite_master WHERE name = 'schedules'").get(), 'the schedules table exists');
    check.close();
  } finally {
    h.close();
  }
});

/** An engine on a database the test holds too, so it can make the disk full (max_page_count) under the engine. */
async function engineOnOwnDatabase(dataDir: string, workflows: Parameters<EmbeddedEngine['registerWorker']>[0]['workflows']) {
  const { DatabaseSync } = await loadSqlite();
  const db = new DatabaseSync(join(dataDir, DATABASE_FILE));
  db.exec('BEGIN');
  prepareSchema(db);
  db.exec('COMMIT');
  const clock = new ManualClock();
  const logger = new CapturingLogger();
  const store = new SqliteStore(db, { clock, logger, retentionMs: RETENTION_MS, idempotencyRetentionMs: IDEMPOTENCY_RETENTION_MS });
  const engine = new EmbeddedEngine({ store, clock, ids: new SequentialIds(), logger });
  engine.registerWorker({ catalog: 'main', workflows });
  return { db, clock, logger, engine };
}

test('a write that fails (the database full) answers the start that needed it as EngineUnavailableError, leaves no run behind, and loses nothing committed before', async () => {
  const dataDir = tempDir();
  const { db, clock, logger, engine } = await engineOnOwnDatabase(dataDir, [echo, sleepy]);
  try {
    const before = await engine.start({ workflowName: 'sleepy', catalog: 'main', workflowId: 'before-1', input: { text: 'kept' } });
    await flush();
    const { page_count: pages } = db.prepare('PRAGMA page_count').get() as { page_count: number };
    db.exec(`PRAGMA max_page_count = ${pages}`);
    const big = 'x'.repeat(200_000);
    const error = await rejection(engine.start({ workflowName: 'echo', catalog: 'main', workflowId: 'too-big', input: { big } }));
    assert.is((error as Error).name, 'EngineUnavailableError');
    assert.match((error as Error).message, /could not write its store/);
    assert.is((await rejection(engine.describe({ workflowId: 'too-big' })) as Error).name, 'WorkflowNotFoundError', 'the refused start left no run');
    assert.ok(logger.entries.some((line) => line.level === 'error' && /could not commit a write/.test(line.message)));
    db.exec('PRAGMA max_page_count = 1073741823');
    const after = await engine.start({ workflowName: 'echo', catalog: 'main', workflowId: 'after-1', input: { small: true } });
    assert.equal((await engine.awaitOutcome(after, { timeoutMs: 5_000 }))?.output, { small: true });
    await clock.advance(60_000);
    await flush(10);
    assert.equal((await engine.awaitOutcome(before, { timeoutMs: 5_000 }))?.output, 'KEPT');
  } finally {
    engine.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test('a schedule change whose write fails (the database full) is EngineUnavailableError and changes nothing', async () => {
  const dataDir = tempDir();
  const { db, engine } = await engineOnOwnDatabase(dataDir, [echo]);
  const schedule = (scheduleId: string, input: unknown) => ({
    scheduleId,
    workflowName: 'echo',
    catalog: 'main',
    input,
    spec: { calendar: { kind: 'every' as const, everyMs: 3_600_000, offsetMs: 0 }, timezone: 'UTC', jitterMs: 0 },
    policy: { overlap: 'skip' as const, catchupWindowMs: 60_000, pauseOnFailure: false },
    paused: true,
    note: '',
  });
  try {
    await engine.schedules.create(schedule('kept', { small: true }));
    const { page_count: pages } = db.prepare('PRAGMA page_count').get() as { page_count: number };
    db.exec(`PRAGMA max_page_count = ${pages}`);
    const big = { big: 'x'.repeat(200_000) };
    for (const [what, attempt] of [
      ['create', () => engine.schedules.create(schedule('refused', big))],
      ['update', () => engine.schedules.update({ ...schedule('kept', big), note: 'changed' })],
    ] as const) {
      const error = await rejection(attempt());
      assert.is((error as Error).name, 'EngineUnavailableError', what);
      assert.match((error as Error).message, /could not write its store/, what);
    }
    assert.is((await rejection(engine.schedules.describe('refused')) as Error).name, 'ScheduleNotFoundError', 'the refused create left nothing');
    const kept = await engine.schedules.describe('kept');
    assert.equal([kept.definition.input, kept.definition.note], [{ small: true }, ''], 'the refused update changed nothing');
    db.exec('PRAGMA max_page_count = 1073741823');
    await engine.schedules.update({ ...schedule('kept', { small: false }), note: 'changed' });
    assert.is((await engine.schedules.describe('kept')).definition.note, 'changed');
  } finally {
    engine.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test('a run whose write failed under way is restored from the store and goes on from what was committed', async () => {
  const dataDir = tempDir();
  const { db, clock, engine } = await engineOnOwnDatabase(dataDir, [sleepy]);
  try {
    const ref = await engine.start({ workflowName: 'sleepy', catalog: 'main', workflowId: 'under-way', input: { text: 'x'.repeat(100_000) } });
    await flush();
    const { page_count: pages } = db.prepare('PRAGMA page_count').get() as { page_count: number };
    db.exec(`PRAGMA max_page_count = ${pages}`);
    const waiting = engine.awaitOutcome(ref, { timeoutMs: 30_000 });
    // The timer fires; its step's events (with a 100 kB input) do not fit.
    await clock.advance(60_000);
    await flush(10);
    assert.is((await engine.describe(ref)).status, 'running');
    assert.is(engine.openRunCount, 1, 'a run waiting to be restored is open (the start and stop lines count it)');
    db.exec('PRAGMA max_page_count = 1073741823');
    let answered = false;
    void waiting.then(() => (answered = true));
    // The engine probes the store again on its real-time probe (about a second): until the run is restored, moving
    // the fake clock on changes nothing; once it is, the next move lets the run finish.
    await eventually('the run restored from the store to finish', async () => {
      await clock.advance(60_000);
      await flush(10);
      return answered;
    });
    const outcome = await waiting;
    assert.is(outcome?.run.runId, ref.runId, 'the caller waiting before the failure gets the answer');
    assert.is(outcome?.output, 'X'.repeat(100_000));
  } finally {
    engine.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test('closed runs past RUN_RETENTION_DAYS are deleted; a keyed run not before its key expired; open runs never', async () => {
  const dataDir = tempDir();
  const clock = new ManualClock();
  const day = 24 * 3600 * 1000;
  // Keys in force for two days, runs kept for one: a keyed run outlives the retention until its key expires.
  const options = { ...storeOptions(dataDir, clock), retentionMs: day, idempotencyRetentionMs: 2 * day };
  const open = async () => {
    const engine = new EmbeddedEngine({ store: await openSqliteStore(options), clock, ids: new SequentialIds(), logger: new CapturingLogger() });
    engine.registerWorker({ catalog: 'main', workflows: [echo, sleepy] });
    return engine;
  };
  let engine = await open();
  try {
    const old = await engine.start({ workflowName: 'echo', catalog: 'main', workflowId: 'old-1', input: { n: 1 } });
    const keyed = await engine.start({ workflowName: 'echo', catalog: 'main', workflowId: 'keyed-1', input: {}, idempotency: { key: 'k', fingerprint: 'f', requestId: 'r' } });
    const running = await engine.start({ workflowName: 'sleepy', catalog: 'main', workflowId: 'open-1', input: { text: 'hi' } });
    await flush(10);
    engine.close();
    await clock.advance(day + 1);
    // Nothing of the engine runs meanwhile: a store alone deletes what it must.
    const store = await openSqliteStore(options);
    assert.is(store.deleteExpiredRuns(), 1, 'only the unkeyed closed run is past its retention');
    store.close();
    engine = await open();
    assert.is(((await rejection(engine.describe(old))) as Error).name, 'WorkflowNotFoundError');
    assert.is(((await rejection(engine.historyPage(old, { pageSize: 10 }))) as Error).name, 'WorkflowNotFoundError');
    assert.is((await engine.describe(keyed)).status, 'completed', 'its key keeps it');
    assert.is((await engine.describe(running)).status, 'running');
    engine.close();
    await clock.advance(day);
    const later = await openSqliteStore(options);
    assert.is(later.deleteExpiredRuns(), 1, 'the keyed run goes once its key expired');
    later.close();
    engine = await open();
    assert.is(((await rejection(engine.describe(keyed))) as Error).name, 'WorkflowNotFoundError');
    assert.is((await engine.describe(running)).status, 'running', 'open runs are never deleted');
  } finally {
    engine.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test('a callback whose delivery had not ended when the process stopped is delivered after the restart, once it ends not again', async () => {
  const pending: { runId: string; settle: () => void }[] = [];
  const delivered: string[] = [];
  const onRunCallback = (run: { runId: string }): Promise<void> =>
    new Promise((resolve) => pending.push({ runId: run.runId, settle: () => (delivered.push(run.runId), resolve()) }));
  const h = await durableHarness([echo], { onRunCallback });
  try {
    const started = await h.engine.start({ workflowName: 'echo', catalog: 'main', workflowId: 'cb-1', input: {}, callback: { url: 'https://receiver.test/cb', retryForMs: 60_000 } });
    await h.outcome(started);
    await flush();
    assert.equal(pending.map((entry) => entry.runId), [started.runId], 'the first delivery began');
    assert.equal(h.store.pendingCallbacks().map((entry) => entry.run.runId), [started.runId]);
    await h.restart();
    await flush();
    assert.equal(pending.map((entry) => entry.runId), [started.runId, started.runId], 'delivered again after the restart');
    pending[1]!.settle();
    await flush(10);
    assert.equal(h.store.pendingCallbacks(), [], 'out of the outbox once its delivery ended');
    await h.restart();
    await flush();
    assert.is(pending.length, 2, 'not delivered a third time');
    assert.equal(delivered, [started.runId]);
  } finally {
    h.close();
  }
});

test("another program's SQLite database, a database that is a directory, a parent that is a file: refused by name, nothing changed", async () => {
  const dataDir = tempDir();
  try {
    const foreign = join(dataDir, 'foreign');
    const { DatabaseSync } = await loadSqlite();
    await openSqliteStore(storeOptions(foreign)).then((store) => store.close());
    rmSync(join(foreign, DATABASE_FILE));
    const raw = new DatabaseSync(join(foreign, DATABASE_FILE));
    raw.exec("CREATE TABLE customers (name TEXT); INSERT INTO customers VALUES ('alice')");
    raw.close();
    const before = readFileSync(join(foreign, DATABASE_FILE));
    const refused = await rejection(openSqliteStore(storeOptions(foreign)));
    assert.instance(refused, DataDirectoryError);
    assert.is((refused as Error).message, `${join(foreign, DATABASE_FILE)} is not a flowgate database (it holds another program's tables); it was left as it is: move it away or give another DATA_DIR`);
    assert.ok(readFileSync(join(foreign, DATABASE_FILE)).equals(before), 'the other program\'s database was not written');

    const directory = join(dataDir, 'directory');
    await openSqliteStore(storeOptions(directory)).then((store) => store.close());
    rmSync(join(directory, DATABASE_FILE));
    mkdirSync(join(directory, DATABASE_FILE));
    const notDatabase = await rejection(openSqliteStore(storeOptions(directory)));
    assert.instance(notDatabase, DataDirectoryError);
    assert.is((notDatabase as Error).message, `${join(directory, DATABASE_FILE)} is a directory, not a database: move it away or give another DATA_DIR`);

    const file = join(dataDir, 'a-file');
    writeFileSync(file, 'not a directory');
    const under = await rejection(openSqliteStore(storeOptions(join(file, 'sub', 'dir'))));
    assert.instance(under, DataDirectoryError);
    assert.is((under as Error).message, `DATA_DIR ${join(file, 'sub', 'dir')} cannot be made: ${file} is a file, not a directory`);
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test('a pid file that cannot be written refuses the directory by name and leaves it free for the next try', async () => {
  const dataDir = tempDir();
  try {
    mkdirSync(join(dataDir, 'flowgate.pid'));
    const refused = await rejection(openSqliteStore(storeOptions(dataDir)));
    assert.instance(refused, DataDirectoryError);
    assert.match((refused as Error).message, `DATA_DIR ${dataDir} cannot be written: ${join(dataDir, 'flowgate.pid')} (`);
    rmSync(join(dataDir, 'flowgate.pid'), { recursive: true });
    // The failed open closed its database: the directory is not held by this process now.
    const store = await openSqliteStore(storeOptions(dataDir));
    assert.is(readFileSync(join(dataDir, 'flowgate.pid'), 'utf8').trim(), String(process.pid));
    store.close();
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test('a new data directory and its database are readable by this user alone; an existing directory keeps its mode', async () => {
  const parent = tempDir();
  const previous = process.umask(0o022);
  try {
    const dataDir = join(parent, 'made', 'data');
    const store = await openSqliteStore(storeOptions(dataDir));
    const mode = (path: string) => statSync(path).mode & 0o777;
    assert.is(mode(dataDir), 0o700);
    assert.is(mode(join(parent, 'made')), 0o755, 'a parent made on the way has the usual mode');
    assert.is(mode(join(dataDir, DATABASE_FILE)), 0o600);
    assert.is(mode(join(dataDir, `${DATABASE_FILE}-wal`)), 0o600, 'SQLite gives its WAL the database file\'s mode');
    store.close();
    const shared = join(parent, 'shared');
    mkdirSync(shared, { mode: 0o750 });
    await openSqliteStore(storeOptions(shared)).then((opened) => opened.close());
    assert.is(mode(shared), 0o750);
  } finally {
    process.umask(previous);
    rmSync(parent, { recursive: true, force: true });
  }
});

test('the pid file names the holder while the store is open and is removed when it closes', async () => {
  const dataDir = tempDir();
  try {
    const store = await openSqliteStore(storeOptions(dataDir));
    assert.is(readFileSync(join(dataDir, 'flowgate.pid'), 'utf8').trim(), String(process.pid));
    store.close();
    assert.not.ok(existsSync(join(dataDir, 'flowgate.pid')));
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test.run();
