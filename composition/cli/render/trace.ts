import type { TraceLog } from '../../../adapters/client/index.js';
import { between, duration, table } from './text.js';

type TraceRecord = NonNullable<TraceLog['data']>;
type TraceStep = TraceRecord['steps'][number];

/** What the worker hooks summed up for a step's last attempt (absent when nothing was recorded). */
interface Aggregations {
  totalCost: number;
  httpCalls: number;
  tokens: number;
}

const BAR_WIDTH = 30;

/**
 * A run's trace as a timeline: a line per step with a bar placed and sized on the run's duration, then the step's
 * duration, attempt, cost, tokens and HTTP calls, and a total line.
 */
export function renderTraceTimeline(log: TraceLog, now: number = Date.now()): string {
  const record = log.data;
  if (!record) {
    return log.source === 'local'
      ? `run ${log.runId}: the trace is ${log.localPath} on the host that wrote it (this server cannot read it)\n`
      : `run ${log.runId}: the stored trace is not readable\n`;
  }
  const start = Date.parse(record.startedAt);
  const end = Math.max(record.closedAt ? Date.parse(record.closedAt) : now, ...record.steps.map((step) => (step.endedAt ? Date.parse(step.endedAt) : now)));
  const total = Math.max(end - start, 1);
  const status = record.closedAt === null ? 'open' : howItEnded(record.error);
  const head = `${record.workflowName}  ${record.workflowId}  run ${log.runId}  ${duration(end - start)}  ${status}\n`;
  if (record.steps.length === 0) return `${head}no steps\n`;
  const sums = { cost: 0, tokens: 0, httpCalls: 0 };
  const rows = record.steps.map((step) => {
    const aggregations = aggregationsOf(step);
    if (aggregations) {
      sums.cost += aggregations.totalCost;
      sums.tokens += aggregations.tokens;
      sums.httpCalls += aggregations.httpCalls;
    }
    return [
      step.name + (step.kind === 'step' ? '' : ` (${step.kind})`),
      bar(Date.parse(step.startedAt) - start, between(step.startedAt, step.endedAt, now), total),
      duration(between(step.startedAt, step.endedAt, now)) + (step.endedAt ? '' : '…'),
      String(step.attempt),
      step.error ? 'failed' : step.endedAt ? 'ok' : 'running',
      aggregations ? cost(aggregations.totalCost) : '-',
      aggregations ? String(aggregations.tokens) : '-',
      aggregations ? String(aggregations.httpCalls) : '-',
    ];
  });
  const totals = ['total', '', duration(end - start), '', '', cost(sums.cost), String(sums.tokens), String(sums.httpCalls)];
  return head + table(['STEP', 'TIMELINE', 'DURATION', 'ATTEMPT', 'STATE', 'COST', 'TOKENS', 'HTTP'], [...rows, totals]);
}

/**
 * A trace keeps no status: the run's error tells how it ended, by the names every engine gives a stopped, terminated
 * or timed-out run (docs/api.md, Results). No error: it completed or continued as new.
 */
function howItEnded(error: TraceRecord['error']): string {
  if (!error) return 'closed';
  switch (error.name) {
    case 'WorkflowCancelledError':
      return 'cancelled';
    case 'WorkflowTerminatedError':
    case 'HistorySizeLimitExceededError':
      return `terminated: ${error.message}`;
    case 'WorkflowTimedOutError':
      return `timed out: ${error.message}`;
    default:
      return `failed: ${error.name}: ${error.message}`;
  }
}

/** `|   ████      |`: where in the run the step ran, at least one block wide. */
export function bar(offsetMs: number, lengthMs: number, totalMs: number, width: number = BAR_WIDTH): string {
  const from = Math.min(width - 1, Math.max(0, Math.floor((offsetMs / totalMs) * width)));
  const length = Math.min(width - from, Math.max(1, Math.round((lengthMs / totalMs) * width)));
  return `|${' '.repeat(from)}${'█'.repeat(length)}${' '.repeat(width - from - length)}|`;
}

function aggregationsOf(step: TraceStep): Aggregations | undefined {
  const value = (step as { aggregations?: unknown }).aggregations;
  if (!value || typeof value !== 'object') return undefined;
  const { totalCost, httpCalls, tokens } = value as Record<string, unknown>;
  return { totalCost: Number(totalCost) || 0, httpCalls: Number(httpCalls) || 0, tokens: Number(tokens) || 0 };
}

function cost(value: number): string {
  return Number.isInteger(value) ? String(value) : value.toFixed(4).replace(/0+$/, '');
}
