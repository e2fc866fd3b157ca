import { randomBytes } from 'node:crypto';
import type { DatabaseSync, StatementSync } from 'node:sqlite';
import { PageFill, type HistoryEvent } from '../../../../core/domain/history.js';
import type { PinnedRunRef, RunDescription, RunRef } from '../../../../core/domain/run.js';
import type { Clock } from '../../../../ports/clock.js';
import type { Logger } from '../../../../ports/logger.js';
import type { CommandRecord } from '../../commandLog.js';
import { Payload } from '../../payload.js';
import type { RunRecord } from '../../runRecord.js';
import { StoreWriteError, type ControlKeyRecord, type EngineStore, type PendingCallback, type RunState, type RunsPage, type RunsQuery, type StoredRun } from '../engineStore.js';
import { callbackOf, chainInputText, decodeCommand, descriptionOf, encodeAttributes, encodeCommand, eventForEngine, payloadText, runRowValues, storedEventBytes, type EventRow, type RunRow } from './rowCodec.js';
import { SqliteStoredRun } from './storedRunView.js';
import { CommitBatch, PART_BUDGET_MS, type CommitPart, type Flushing } from './commitBatch.js';
import { decodeSchedule, encodeSchedule, type StoredSchedule } from '../../schedules/storedSchedule.js';

export interface SqliteStoreOptions {
  clock: Clock;
  logger: Logger;
  /** Closed runs are deleted this long after they closed (RUN_RETENTION_DAYS). */
  retentionMs: number;
  /** A keyed run is kept at least this long after it closed, so a retry of its start still finds it. */
  idempotencyRetentionMs: number;
}

/** What the store has written of a live run: the row, how many events, its close. */
interface Written {
  row: boolean;
  events: number;
  close: boolean;
}

/** Closed runs deleted per transaction by the retention pass, which yields to the event loop between them. */
const RETENTION_CHUNK = 500;
/** How often the retention pass runs (and once shortly after the store opens). */
const RETENTION_INTERVAL_MS = 60 * 60 * 1000;
const FIRST_RETENTION_PASS_MS = 10_000;

/**
 * The durable store: every run, its history and its commands in SQLite (node:sqlite, WAL), opened by openSqliteStore
 * (openSqliteStore.ts) on a data directory it holds alone.
 *
 * Changes are gathered for a turn of the event loop and committed as a group (commitBatch.ts), in parts of about
 * PART_BUDGET_MS of writing, one transaction and one turn each; `commit(run)` is what an answer, and the workflow code
 * that gets an outcome, wait on. A part that fails is rolled back and the engine hears which runs it and the parts
 * after it held (EngineStore.onWriteFailed): they are restored from what is stored. Only open runs are in memory;
 * closed ones are read from the database when asked for, so memory stays bounded whatever the store holds.
 */
export class SqliteStore implements EngineStore {
  readonly kind = 'sqlite';
  readonly durable = true;
  readonly pageTokenKey: Buffer;
  private readonly written = new WeakMap<RunRecord, Written>();
  private batch: CommitBatch | undefined;
  private flushing: Flushing | undefined;
  private flushScheduled = false;
  private sequence: number;
  private failureHandler: (records: readonly RunRecord[], error: unknown) => void = () => {};
  private readonly statements = new Map<string, StatementSync>();
  private retentionTimer: NodeJS.Timeout | undefined;
  private firstRetentionPass: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(
    private readonly db: DatabaseSync,
    private readonly options: SqliteStoreOptions,
  ) {
    this.pageTokenKey = this.metaKey();
    this.sequence = (this.db.prepare('SELECT max(seq) AS seq FROM runs').get() as { seq: number | null }).seq ?? 0;
    this.firstRetentionPass = setTimeout(() => this.deleteExpiredRuns(), FIRST_RETENTION_PASS_MS).unref();
    this.retentionTimer = setInterval(() => this.deleteExpiredRuns(), RETENTION_INTERVAL_MS).unref();
  }

  nextSequence(): number {
    this.sequence += 1;
    return this.sequence;
  }

  runAdded(record: RunRecord): void {
    this.pending().changed(record);
  }

  runChanged(record: RunRecord): void {
    this.pending().changed(record);
  }

  commandChanged(record: RunRecord, command: CommandRecord): void {
    this.pending().commandChanged(record, command);
  }

  changedTogether(first: RunRecord, second: RunRecord): void {
    this.pending().together(first, second);
  }

  commit(record: RunRecord): Promise<void> | undefined {
    if (this.batch?.runs.has(record)) return this.batch.committed(record);
    // Changes of the batch being committed part by part, not yet in a committed part.
    const flushing = this.flushing;
    if (flushing?.uncommitted.has(record)) return flushing.batch.committed(record);
    return this.batch?.committed(record);
  }

  runClosed(): void {}

  probe(): boolean {
    if (this.closed) return false;
    try {
      this.db.exec('BEGIN IMMEDIATE');
      this.statement("INSERT OR REPLACE INTO meta (key, value) VALUES ('probed_at', ?)").run(String(this.options.clock.now()));
      this.db.exec('COMMIT');
      return true;
    } catch {
      try {
        if (this.db.isTransaction) this.db.exec('ROLLBACK');
      } catch {
        // Rolled back when the database is next opened.
      }
      return false;
    }
  }

  onWriteFailed(handler: (records: readonly RunRecord[], error: unknown) => void): void {
    this.failureHandler = handler;
  }

  lookup(ref: RunRef): StoredRun | undefined {
    const row =
      ref.runId === undefined
        ? (this.statement('SELECT * FROM runs WHERE workflow_id = ? ORDER BY seq DESC LIMIT 1').get(ref.workflowId) as RunRow | undefined)
        : (this.statement('SELECT * FROM runs WHERE run_id = ?').get(ref.runId) as RunRow | undefined);
    if (!row || row.workflow_id !== ref.workflowId) return undefined;
    return new SqliteStoredRun(row, this);
  }

  latestOfChain(workflowId: string, firstRunId: string): StoredRun | undefined {
    const row = this.statement('SELECT * FROM runs WHERE workflow_id = ? AND first_run_id = ? ORDER BY seq DESC LIMIT 1').get(workflowId, firstRunId) as RunRow | undefined;
    return row ? new SqliteStoredRun(row, this) : undefined;
  }

  listRuns(query: RunsQuery): RunsPage {
    const conditions: string[] = [];
    const values: (string | number)[] = [];
    if (query.workflowName !== undefined) {
      conditions.push('workflow_name = ?');
      values.push(query.workflowName);
    }
    if (query.catalog !== undefined) {
      conditions.push('catalog = ?');
      values.push(query.catalog);
    }
    if (query.status !== undefined) {
      conditions.push('status = ?');
      values.push(query.status);
    }
    if (query.startedBy !== undefined) {
      conditions.push('started_by = ?');
      values.push(query.startedBy);
    }
    if (query.scheduleId !== undefined) {
      conditions.push('schedule_id = ?');
      values.push(query.scheduleId);
    }
    if (query.after) {
      conditions.push('(started_at, seq) < (?, ?)');
      values.push(bounded(query.after.startedAt), bounded(query.after.sequence));
    }
    const where = conditions.length > 0 ? `WHERE ${conditions.join(' AND ')}` : '';
    const rows = this.statement(`SELECT * FROM runs ${where} ORDER BY started_at DESC, seq DESC LIMIT ?`).all(...values, query.limit + 1) as unknown as RunRow[];
    const page = rows.slice(0, query.limit);
    return { runs: page.map((row) => ({ description: descriptionOf(row), sequence: row.seq })), more: rows.length > query.limit };
  }

  keyedStart(workflowId: string, requestId: string): RunDescription | undefined {
    const latest = this.statement('SELECT * FROM runs WHERE workflow_id = ? ORDER BY seq DESC LIMIT 1').get(workflowId) as RunRow | undefined;
    if (!latest || latest.keyed === 0) return undefined;
    const description = descriptionOf(latest);
    return description.idempotency?.requestId === requestId ? description : undefined;
  }

  /** Keys live with their runs, which are kept at least as long as the keys are in force. */
  admitKey(): void {}

  chainStarted(): void {}

  chainClosed(): void {}

  loadState(ref: PinnedRunRef): RunState | undefined {
    const row = this.statement('SELECT * FROM runs WHERE run_id = ?').get(ref.runId) as RunRow | undefined;
    if (!row || row.workflow_id !== ref.workflowId) return undefined;
    return this.stateOf(row);
  }

  openRuns(): RunState[] {
    const rows = this.statement("SELECT * FROM runs WHERE status = 'running' ORDER BY seq").all() as unknown as RunRow[];
    return rows.map((row) => this.stateOf(row));
  }

  readonly keepsControlKeys = true;

  controlKey(key: string, retentionMs: number): ControlKeyRecord | undefined {
    const row = this.statement('SELECT fingerprint, requested_at, workflow_id, run_id FROM control_keys WHERE key = ?').get(key) as
      | { fingerprint: string; requested_at: number; workflow_id: string; run_id: string }
      | undefined;
    if (!row || row.requested_at + retentionMs <= this.options.clock.now()) return undefined;
    return { fingerprint: row.fingerprint, requestedAt: new Date(row.requested_at), answer: { workflowId: row.workflow_id, runId: row.run_id } };
  }

  keepControlKey(key: string, record: ControlKeyRecord): void {
    this.pending().controlKeys.push([key, record]);
  }

  pendingCallbacks(): PendingCallback[] {
    const rows = this.statement('SELECT workflow_id, run_id, target FROM callbacks ORDER BY run_seq').all() as unknown as { workflow_id: string; run_id: string; target: string }[];
    return rows.map((row) => ({ run: { workflowId: row.workflow_id, runId: row.run_id }, target: JSON.parse(row.target) as PendingCallback['target'] }));
  }

  callbackEnded(run: PinnedRunRef): void {
    if (this.closed) return;
    this.pending().callbacksEnded.push(run);
  }

  loadSchedules(): StoredSchedule[] {
    const rows = this.statement('SELECT body FROM schedules ORDER BY id').all() as unknown as { body: string }[];
    return rows.map((row) => decodeSchedule(row.body));
  }

  saveSchedule(schedule: StoredSchedule): void {
    this.writeNow(() => this.statement('INSERT OR REPLACE INTO schedules (id, body) VALUES (?, ?)').run(schedule.definition.scheduleId, encodeSchedule(schedule)));
  }

  deleteSchedule(scheduleId: string): void {
    this.writeNow(() => this.statement('DELETE FROM schedules WHERE id = ?').run(scheduleId));
  }

  /** One statement committed on its own (autocommit); a failure is a StoreWriteError, as a batch's is. */
  private writeNow(write: () => void): void {
    if (this.closed) throw new StoreWriteError('The data directory is closed');
    try {
      write();
    } catch (error) {
      throw new StoreWriteError(`Could not write to the data directory: ${(error as Error).message}`, { cause: error });
    }
  }

  usage(): Record<string, number> {
    const count = (sql: string): number => (this.statement(sql).get() as { n: number }).n;
    return {
      openRuns: count("SELECT count(*) AS n FROM runs WHERE status = 'running'"),
      closedRuns: count("SELECT count(*) AS n FROM runs WHERE status <> 'running'"),
      pendingCallbacks: count('SELECT count(*) AS n FROM callbacks'),
    };
  }

  close(): void {
    if (this.closed) return;
    while (this.flushing || this.batch) this.flush(Number.POSITIVE_INFINITY);
    this.closed = true;
    clearTimeout(this.firstRetentionPass);
    clearInterval(this.retentionTimer);
    this.statements.clear();
    this.db.close();
  }

  /**
   * The events of a stored run from `afterEventId` on (SqliteStoredRun's reads): at most `limit`, and about `maxBytes`
   * of them (a history page's bytes), so a page or a follower's read never loads a whole large history. The rows past
   * the page are not read.
   */
  eventRows(seq: number, afterEventId: number, limit: number, maxBytes: number): EventRow[] {
    const rows: EventRow[] = [];
    const fill = new PageFill(limit, maxBytes);
    const read = this.statement('SELECT event_id, type, time, step_name, attributes FROM events WHERE run_seq = ? AND event_id > ? ORDER BY event_id LIMIT ?');
    for (const row of read.iterate(seq, afterEventId, limit) as Iterable<unknown> as Iterable<EventRow>) {
      if (!fill.takes(storedEventBytes(row))) break;
      rows.push(row);
    }
    return rows;
  }

  eventCount(seq: number): number {
    return (this.statement('SELECT max(event_id) AS n FROM events WHERE run_seq = ?').get(seq) as { n: number | null }).n ?? 0;
  }

  /**
   * Deletes the closed runs past their retention (a keyed run not before its key expired), a few hundred per
   * transaction so a commit of the runs never waits long behind it.
   */
  deleteExpiredRuns(): number {
    if (this.closed) return 0;
    const now = this.options.clock.now();
    const cutoff = now - this.options.retentionMs;
    const keyCutoff = now - Math.max(this.options.retentionMs, this.options.idempotencyRetentionMs);
    const select = this.statement('SELECT seq FROM runs WHERE closed_at IS NOT NULL AND closed_at < ? AND (keyed = 0 OR closed_at < ?) LIMIT ?');
    let deleted = 0;
    try {
      const rows = select.all(cutoff, keyCutoff, RETENTION_CHUNK) as unknown as { seq: number }[];
      this.db.exec('BEGIN');
      this.statement('DELETE FROM control_keys WHERE requested_at < ?').run(now - this.options.idempotencyRetentionMs);
      for (const { seq } of rows) {
        this.statement('DELETE FROM events WHERE run_seq = ?').run(seq);
        this.statement('DELETE FROM commands WHERE run_seq = ?').run(seq);
        this.statement('DELETE FROM callbacks WHERE run_seq = ?').run(seq);
        this.statement('DELETE FROM runs WHERE seq = ?').run(seq);
      }
      this.db.exec('COMMIT');
      deleted = rows.length;
    } catch (error) {
      if (this.db.isTransaction) this.db.exec('ROLLBACK');
      this.options.logger.error('embedded engine: deleting runs past RUN_RETENTION_DAYS failed; the next pass tries again', {
        error: error instanceof Error ? error.message : String(error),
      });
      return deleted;
    }
    if (deleted === RETENTION_CHUNK) setImmediate(() => this.deleteExpiredRuns());
    return deleted;
  }

  private pending(): CommitBatch {
    if (this.batch) return this.batch;
    this.batch = new CommitBatch();
    // After this turn's work: every run that moves in it shares the commit.
    this.scheduleFlush();
    return this.batch;
  }

  private scheduleFlush(): void {
    if (this.flushScheduled) return;
    this.flushScheduled = true;
    setImmediate(() => {
      this.flushScheduled = false;
      this.flush(PART_BUDGET_MS);
    });
  }

  /**
   * Commits the next part of the batch being committed (the pending batch once the one before is done, so a run's
   * changes are committed in the order they were made), then shows what it held; the next part in the next turn.
   */
  private flush(budgetMs: number): void {
    if (this.closed) return;
    if (!this.flushing) {
      const batch = this.batch;
      if (!batch) return;
      this.batch = undefined;
      this.flushing = { batch, parts: batch.parts(), next: 0, uncommitted: new Set(batch.runs.keys()) };
    }
    this.commitPart(this.flushing, budgetMs);
    if (this.flushing || this.batch) this.scheduleFlush();
  }

  private commitPart(flushing: Flushing, budgetMs: number): void {
    const { batch, parts } = flushing;
    const began = performance.now();
    const after: (() => void)[] = [];
    const from = flushing.next;
    let to = from;
    try {
      this.db.exec('BEGIN');
      do {
        this.writePart(batch, parts[to]!, after);
        to += 1;
      } while (to < parts.length && performance.now() - began < budgetMs);
      this.db.exec('COMMIT');
    } catch (error) {
      try {
        if (this.db.isTransaction) this.db.exec('ROLLBACK');
      } catch {
        // The rollback failed too: SQLite rolls the transaction back when the database is next opened.
      }
      const failure = new StoreWriteError(error instanceof Error ? error.message : String(error));
      const lost = parts.slice(from);
      this.flushing = undefined;
      batch.failed(lost, failure);
      this.failureHandler(lost.flatMap((part) => part.runs), failure);
      return;
    }
    flushing.next = to;
    if (to === parts.length) this.flushing = undefined;
    for (const show of after) show();
    for (const part of parts.slice(from, to)) {
      for (const record of part.runs) flushing.uncommitted.delete(record);
      batch.partCommitted(part);
    }
    if (to === parts.length) batch.allCommitted();
  }

  /** Writes one part: its runs, the callbacks that left the outbox and the keys of the requests that changed them. */
  private writePart(batch: CommitBatch, part: CommitPart, after: (() => void)[]): void {
    for (const record of part.runs) after.push(this.write(record, batch.runs.get(record)!));
    for (const run of part.callbacksEnded) this.statement('DELETE FROM callbacks WHERE run_id = ?').run(run.runId);
    for (const [key, record] of part.controlKeys) {
      this.statement('INSERT OR REPLACE INTO control_keys (key, fingerprint, requested_at, workflow_id, run_id) VALUES (?, ?, ?, ?, ?)').run(
        key,
        record.fingerprint,
        record.requestedAt.getTime(),
        record.answer.workflowId,
        record.answer.runId,
      );
    }
  }

  /** Writes what changed of one run; returns what to record and show once the transaction is committed. */
  private write(record: RunRecord, commands: ReadonlySet<CommandRecord>): () => void {
    const written = this.written.get(record) ?? { row: record.committed, events: record.committed ? record.history.visibleCount : 0, close: false };
    const seq = record.sequence;
    if (!written.row) {
      this.statement(
        'INSERT INTO runs (seq, run_id, workflow_id, workflow_name, catalog, status, started_at, first_run_id, chain_started_at, keyed, details, input, chain_input, started_by, schedule_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
      ).run(...runRowValues(record.description, seq, record.chainStartedAt, record.input, record.chainInput, record.callback));
    }
    const events = record.history.events;
    const insertEvent = this.statement('INSERT INTO events (run_seq, event_id, type, time, step_name, attributes) VALUES (?, ?, ?, ?, ?, ?)');
    for (let index = written.events; index < events.length; index += 1) {
      const event = events[index]!;
      insertEvent.run(seq, event.eventId, event.type, event.time, event.stepName ?? null, encodeAttributes(event.attributes));
    }
    if (commands.size > 0) {
      const upsert = this.statement('INSERT OR REPLACE INTO commands (run_seq, idx, body) VALUES (?, ?, ?)');
      for (const command of commands) upsert.run(seq, command.index, encodeCommand(command));
    }
    const decided = record.decided;
    const closing = decided !== undefined && !written.close;
    if (decided && closing) {
      const { closing: close, closedAt } = decided;
      this.statement('UPDATE runs SET status = ?, closed_at = ?, output = ?, failure = ?, continued_to = ? WHERE seq = ?').run(
        close.status,
        closedAt.getTime(),
        close.output ? payloadText(close.output) : null,
        close.failure ? JSON.stringify(close.failure) : null,
        record.continuedTo?.description.runId ?? null,
        seq,
      );
      // The outbox: a callback due at a crash is delivered after the restart.
      if (record.callback && close.status !== 'continued_as_new') {
        const { workflowId, runId } = record.description;
        this.statement('INSERT OR REPLACE INTO callbacks (run_seq, workflow_id, run_id, target) VALUES (?, ?, ?, ?)').run(seq, workflowId, runId, JSON.stringify(record.callback));
      }
    }
    const eventCount = events.length;
    return () => {
      if (closing) {
        // A closed run leaves memory: from now on it is read from the database.
        this.written.delete(record);
      } else {
        this.written.set(record, { row: true, events: eventCount, close: false });
      }
      record.committed = true;
      record.history.markCommitted(eventCount);
    };
  }

  private stateOf(row: RunRow): RunState {
    const eventRows = this.statement('SELECT event_id, type, time, step_name, attributes FROM events WHERE run_seq = ? ORDER BY event_id').all(row.seq) as unknown as EventRow[];
    const events: HistoryEvent[] = eventRows.map(eventForEngine);
    const commandRows = this.statement('SELECT idx, body FROM commands WHERE run_seq = ? ORDER BY idx').all(row.seq) as unknown as { idx: number; body: string }[];
    const input = Payload.fromText(row.input);
    const chainText = chainInputText(row);
    return {
      description: descriptionOf(row),
      sequence: row.seq,
      input,
      chainInput: chainText === row.input ? input : Payload.fromText(chainText),
      chainStartedAt: new Date(row.chain_started_at),
      callback: callbackOf(row),
      events,
      commands: commandRows.map((command) => decodeCommand(command.idx, command.body, events)),
    };
  }

  /** The key page tokens are signed with, made once and kept with the runs. */
  private metaKey(): Buffer {
    const found = this.db.prepare("SELECT value FROM meta WHERE key = 'page_token_key'").get() as { value: string } | undefined;
    if (found) return Buffer.from(found.value, 'base64');
    const key = randomBytes(32);
    this.db.prepare("INSERT INTO meta (key, value) VALUES ('page_token_key', ?)").run(key.toString('base64'));
    return key;
  }

  private statement(sql: string): StatementSync {
    let statement = this.statements.get(sql);
    if (!statement) {
      statement = this.db.prepare(sql);
      this.statements.set(sql, statement);
    }
    return statement;
  }
}

/** A page token's position as SQLite compares it (the first page's "after everything" is a very large number). */
function bounded(value: number): number {
  return Number.isFinite(value) ? value : Number.MAX_SAFE_INTEGER;
}
