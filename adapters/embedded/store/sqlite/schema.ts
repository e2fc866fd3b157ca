import type { DatabaseSync } from 'node:sqlite';

/**
 * The schema version this flowgate writes (PRAGMA user_version). A database with a higher one was written by a newer
 * flowgate: it is refused, never migrated down. Version 0 is a new, empty file.
 */
export const SCHEMA_VERSION = 3;

/**
 * One row per run, its history events and its commands beside it, keyed by the run's insertion number (`seq`, the
 * tie-breaker of "newest first"). Payloads are JSON text, as the engine keeps them. The indexes serve what the API
 * asks: the latest run of an id, runs lists filtered by workflow name, status or catalog and paged newest first,
 * the open runs at start, and the closed runs past their retention. The Idempotency-Keys of feedback, terminate and
 * reset are kept beside them (`control_keys`), written in the commit of what they did. Version 2 added the runs'
 * starter (`started_by`); version 3 the schedule that started a run (`schedule_id`) and the schedules themselves, one
 * JSON document each (adapters/embedded/schedules/storedSchedule.ts).
 */
const SCHEMA = `
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE runs (
  seq INTEGER PRIMARY KEY,
  run_id TEXT NOT NULL UNIQUE,
  workflow_id TEXT NOT NULL,
  workflow_name TEXT NOT NULL,
  catalog TEXT NOT NULL,
  status TEXT NOT NULL,
  started_at INTEGER NOT NULL,
  closed_at INTEGER,
  first_run_id TEXT NOT NULL,
  chain_started_at INTEGER NOT NULL,
  keyed INTEGER NOT NULL,
  details TEXT NOT NULL,
  input TEXT,
  chain_input TEXT,
  output TEXT,
  failure TEXT,
  continued_to TEXT,
  started_by TEXT,
  schedule_id TEXT
);
CREATE INDEX runs_by_workflow_id ON runs (workflow_id, seq);
CREATE INDEX runs_by_start ON runs (started_at, seq);
CREATE INDEX runs_by_name ON runs (workflow_name, started_at, seq);
CREATE INDEX runs_by_name_and_status ON runs (workflow_name, status, started_at, seq);
CREATE INDEX runs_by_status ON runs (status, started_at, seq);
CREATE INDEX runs_by_catalog ON runs (catalog, started_at, seq);
CREATE INDEX runs_by_close ON runs (closed_at) WHERE closed_at IS NOT NULL;
CREATE INDEX runs_by_starter ON runs (started_by, started_at, seq) WHERE started_by IS NOT NULL;
CREATE INDEX runs_by_schedule ON runs (schedule_id, started_at, seq) WHERE schedule_id IS NOT NULL;
CREATE TABLE schedules (id TEXT PRIMARY KEY, body TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE events (
  run_seq INTEGER NOT NULL,
  event_id INTEGER NOT NULL,
  type TEXT NOT NULL,
  time TEXT NOT NULL,
  step_name TEXT,
  attributes TEXT NOT NULL,
  PRIMARY KEY (run_seq, event_id)
) WITHOUT ROWID;
CREATE TABLE commands (
  run_seq INTEGER NOT NULL,
  idx INTEGER NOT NULL,
  body TEXT NOT NULL,
  PRIMARY KEY (run_seq, idx)
) WITHOUT ROWID;
CREATE TABLE control_keys (
  key TEXT PRIMARY KEY,
  fingerprint TEXT NOT NULL,
  requested_at INTEGER NOT NULL,
  workflow_id TEXT NOT NULL,
  run_id TEXT NOT NULL
) WITHOUT ROWID;
CREATE INDEX control_keys_by_time ON control_keys (requested_at);
CREATE TABLE callbacks (
  run_seq INTEGER PRIMARY KEY,
  workflow_id TEXT NOT NULL,
  run_id TEXT NOT NULL,
  target TEXT NOT NULL
);
`;

/** What the version check found. */
export type SchemaCheck = { kind: 'ready' } | { kind: 'newer'; version: number } | { kind: 'foreign' };

/**
 * Creates the schema in a new database; reports a database written by a newer flowgate, and one of another program
 * (version 0 with tables in it), which is never written to. Inside the caller's transaction.
 */
export function prepareSchema(db: DatabaseSync): SchemaCheck {
  const { user_version: version } = db.prepare('PRAGMA user_version').get() as { user_version: number };
  if (version > SCHEMA_VERSION) return { kind: 'newer', version };
  if (version === SCHEMA_VERSION) return { kind: 'ready' };
  if (version === 0 && db.prepare('SELECT 1 FROM sqlite_master LIMIT 1').get() !== undefined) return { kind: 'foreign' };
  if (version === 0) db.exec(SCHEMA);
  else for (const migration of MIGRATIONS.slice(version - 1)) db.exec(migration);
  db.exec(`PRAGMA user_version = ${SCHEMA_VERSION}`);
  return { kind: 'ready' };
}

/**
 * What takes a database of version n to n + 1 (`MIGRATIONS[n - 1]`), run in order inside the opening transaction: a
 * data directory of an older flowgate opens with its runs as they were.
 */
const MIGRATIONS: readonly string[] = [
  // 2: the API key that started a run (docs/security.md, Who did what), filterable by GET /workflow/runs?startedBy=.
  `ALTER TABLE runs ADD COLUMN started_by TEXT;
   CREATE INDEX runs_by_starter ON runs (started_by, started_at, seq) WHERE started_by IS NOT NULL;`,
  // 3: schedules (docs/schedules.md), and the schedule that started a run, filterable by GET /workflow/runs?scheduleId=.
  `ALTER TABLE runs ADD COLUMN schedule_id TEXT;
   CREATE INDEX runs_by_schedule ON runs (schedule_id, started_at, seq) WHERE schedule_id IS NOT NULL;
   CREATE TABLE schedules (id TEXT PRIMARY KEY, body TEXT NOT NULL) WITHOUT ROWID;`,
];
