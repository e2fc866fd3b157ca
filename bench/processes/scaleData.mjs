// Figure 10's data directory: closed runs by the million, written straight into the durable store's database, so a
// `flowgate serve` on it reads them as the runs it made itself.
// Usage: node bench/processes/scaleData.mjs '{"dataDir":...,"traceDir":...,"runs":1000000,"longRunSteps":3333}'
//   → one JSON line (ScaleData in bench/scale.ts) on stdout.
//
// The store writes every row first: a real flowgate on the directory runs one run per status the figure needs
// (completed, failed, terminated, cancelled) and the long one (3 events per step). Their rows, events and commands
// are the templates: each generated run is a copy of one, with its own ids, workflow name and times, inserted with
// prepared statements in large transactions. The runs table's indexes are dropped for the inserts and made again
// from their own CREATE statements, as the schema wrote them: building an index once is much faster than keeping it
// up to date row by row, and the result is the same index.
import { randomUUID } from 'node:crypto';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { request } from 'undici';
import { startFlowgateServer } from '../../dist/composition/server.js';
import { DATABASE_FILE } from '../../dist/adapters/embedded/store/sqlite/openSqliteStore.js';

/** The workflow names of the generated runs, and their shares. Names the server does not serve are still read. */
const WORKFLOW_MIX = [
  ['order_fulfilment', 0.4],
  ['invoice_reminder', 0.3],
  ['nightly_export', 0.2],
  ['customer_onboarding', 0.1],
];
/** Statuses of the generated runs, and their shares. */
const STATUS_MIX = [
  ['completed', 0.85],
  ['failed', 0.1],
  ['terminated', 0.03],
  ['cancelled', 0.02],
];
/** Generated runs start over this span, ending an hour ago: well inside RUN_RETENTION_DAYS' default of 30. */
const SPAN_MS = 20 * 24 * 3600 * 1000;
const RUNS_PER_TRANSACTION = 20_000;

const spec = JSON.parse(process.argv[2] ?? '{}');
if (!spec.dataDir || !spec.runs) throw new Error('usage: scaleData.mjs \'{"dataDir":...,"traceDir":...,"runs":1000000,"longRunSteps":3333}\'');
const began = performance.now();

const templates = await runTemplates();
const templatesSeconds = (performance.now() - began) / 1000;

const db = new DatabaseSync(join(spec.dataDir, DATABASE_FILE));
// Only for the generation: the directory is thrown away if it fails half-way.
db.exec('PRAGMA synchronous = OFF');
db.exec('PRAGMA cache_size = -1048576');
const inserted = performance.now();
const indexes = db.prepare("SELECT name, sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL").all();
for (const { name } of indexes) db.exec(`DROP INDEX ${name}`);
const generated = insertCopies(db, templates);
const insertSeconds = (performance.now() - inserted) / 1000;
const indexed = performance.now();
for (const { sql } of indexes) db.exec(sql);
db.exec('PRAGMA wal_checkpoint(TRUNCATE)');
const indexSeconds = (performance.now() - indexed) / 1000;
const count = (sql) => db.prepare(sql).get().n;
const closedRuns = count("SELECT count(*) AS n FROM runs WHERE status <> 'running'");
const events = count('SELECT count(*) AS n FROM events');
const longRunEvents = db.prepare('SELECT count(*) AS n FROM events WHERE run_seq = (SELECT seq FROM runs WHERE run_id = ?)').get(templates.long.runId).n;
const matching = (workflowName, status) => db.prepare('SELECT count(*) AS n FROM runs WHERE workflow_name = ? AND status = ?').get(workflowName, status).n;
const [dense, sparse] = [
  [WORKFLOW_MIX[0][0], STATUS_MIX[0][0]],
  [WORKFLOW_MIX.at(-1)[0], STATUS_MIX.at(-1)[0]],
].map(([workflowName, status]) => ({ workflowName, status, runs: matching(workflowName, status) }));
db.close();

const bytes = readdirSync(spec.dataDir).reduce((sum, file) => sum + statSync(join(spec.dataDir, file)).size, 0);
process.stdout.write(
  `${JSON.stringify({
    closedRuns,
    generatedRuns: generated,
    events,
    bytes,
    seconds: (performance.now() - began) / 1000,
    templatesSeconds,
    insertSeconds,
    indexSeconds,
    longRun: { workflowId: templates.long.workflowId, runId: templates.long.runId, events: longRunEvents },
    dense,
    sparse,
  })}\n`,
);

/** The real runs the copies are made from, run by a flowgate on the data directory, then stopped. */
async function runTemplates() {
  const server = await startFlowgateServer({
    env: {
      ...process.env,
      ENGINE: 'embedded',
      DATA_DIR: spec.dataDir,
      // Only the generation's own runs: the figure's server runs with the default.
      DATA_SYNC: 'normal',
      PORT: '0',
      LOG_LEVEL: 'error',
      WORKFLOWS_DIR: 'dist/bench/workflows',
      TRACE_DIR: spec.traceDir,
    },
  });
  try {
    const call = async (method, path, body) => {
      const response = await request(`${server.url}${path}`, { method, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body ?? {}) });
      const answer = await response.body.json();
      if (response.statusCode !== 200) throw new Error(`${method} ${path}: ${response.statusCode} ${JSON.stringify(answer)}`);
      return answer;
    };
    const closed = async (status, path, body) => {
      const run = await call('POST', '/workflow', { workflowName: 'bench_waits', input: {} });
      await call(path.startsWith('/stop') ? 'PATCH' : 'POST', `/workflow/${run.workflowId}/runs/${run.runId}${path}`, body);
      await call('GET', `/workflow/${run.workflowId}/runs/${run.runId}/result?wait=10`);
      return { ...run, status };
    };
    const byStatus = {
      completed: await call('POST', '/workflow/run', { workflowName: 'bench_two_steps', input: { n: 1 } }),
      failed: await call('POST', '/workflow/run', { workflowName: 'bench_fails', input: { n: 1 } }),
      terminated: await closed('terminated', '/terminate', { reason: 'bench' }),
      cancelled: await closed('cancelled', '/stop'),
    };
    for (const [status, run] of Object.entries(byStatus)) if (run.status !== status) throw new Error(`the ${status} template ended ${run.status}`);
    const long = await call('POST', '/workflow/run', { workflowName: 'bench_many_steps', input: { steps: spec.longRunSteps }, timeout: 300 });
    if (long.status !== 'completed') throw new Error(`the long run ended ${long.status}`);
    return { byStatus, long };
  } finally {
    await server.close();
  }
}

/** Copies of the templates up to `spec.runs` closed runs in all; returns how many were inserted. */
function insertCopies(db, { byStatus }) {
  const template = (runId) => {
    const row = db.prepare('SELECT * FROM runs WHERE run_id = ?').get(runId);
    return {
      row,
      events: db.prepare('SELECT event_id, type, time, step_name, attributes FROM events WHERE run_seq = ? ORDER BY event_id').all(row.seq),
      commands: db.prepare('SELECT idx, body FROM commands WHERE run_seq = ? ORDER BY idx').all(row.seq),
    };
  };
  const templatesByStatus = new Map(STATUS_MIX.map(([status]) => [status, template(byStatus[status].runId)]));
  const columns = Object.keys(templatesByStatus.get('completed').row);
  const insertRun = db.prepare(`INSERT INTO runs (${columns.join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`);
  const insertEvent = db.prepare('INSERT INTO events (run_seq, event_id, type, time, step_name, attributes) VALUES (?, ?, ?, ?, ?, ?)');
  const insertCommand = db.prepare('INSERT INTO commands (run_seq, idx, body) VALUES (?, ?, ?)');
  // Per status and workflow name: the template's events with the name put in, each at its offset from the start.
  const shapes = new Map();
  for (const [status, { row, events, commands }] of templatesByStatus) {
    for (const [name] of WORKFLOW_MIX) {
      shapes.set(`${status} ${name}`, {
        row,
        commands,
        duration: row.closed_at - row.started_at,
        events: events.map((event) => ({ ...event, offset: Date.parse(event.time) - row.started_at, attributes: event.attributes.replaceAll(row.workflow_name, name) })),
      });
    }
  }
  const existing = db.prepare("SELECT count(*) AS n, max(seq) AS seq FROM runs WHERE status <> 'running'").get();
  const total = Math.max(0, spec.runs - existing.n);
  const random = seededRandom(26);
  const pick = (mix) => {
    let roll = random();
    for (const [value, share] of mix) if ((roll -= share) < 0) return value;
    return mix.at(-1)[0];
  };
  const spanStart = Date.now() - 3600_000 - SPAN_MS;
  let seq = existing.seq;
  for (let done = 0; done < total; ) {
    db.exec('BEGIN');
    const end = Math.min(total, done + RUNS_PER_TRANSACTION);
    for (; done < end; done += 1) {
      seq += 1;
      const name = pick(WORKFLOW_MIX);
      const shape = shapes.get(`${pick(STATUS_MIX)} ${name}`);
      const startedAt = spanStart + Math.floor((done * SPAN_MS) / total);
      const runId = randomUUID();
      const row = {
        ...shape.row,
        seq,
        run_id: runId,
        workflow_id: `${name}-${done + 1}`,
        workflow_name: name,
        started_at: startedAt,
        closed_at: startedAt + shape.duration,
        first_run_id: runId,
        chain_started_at: startedAt,
      };
      insertRun.run(...columns.map((column) => row[column]));
      for (const event of shape.events) {
        insertEvent.run(seq, event.event_id, event.type, new Date(startedAt + event.offset).toISOString(), event.step_name, event.attributes);
      }
      for (const command of shape.commands) insertCommand.run(seq, command.idx, command.body);
    }
    db.exec('COMMIT');
  }
  return total;
}

/** The same mix on every run of the bench (mulberry32). */
function seededRandom(seed) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
