// Figure 11's view into the durable store: how long each commit (one transaction: a part of a turn's changes) held
// the event loop, and how many runs it wrote. The bench's own instrument, wrapped around SqliteStore's commitPart (the
// one place a commit runs) in the bench's server process only; it records nothing until asked to (`start`).
import { SqliteStore } from '../../dist/adapters/embedded/store/sqlite/sqliteStore.js';

const durations = [];
const runs = [];
let recording = false;
const commitPart = SqliteStore.prototype.commitPart;
if (typeof commitPart !== 'function') throw new Error('SqliteStore has no commitPart(): bench/processes/commitTimes.mjs needs updating');
SqliteStore.prototype.commitPart = function timedCommitPart(flushing, budgetMs) {
  if (!recording) return commitPart.call(this, flushing, budgetMs);
  const from = flushing.next;
  const began = performance.now();
  try {
    return commitPart.call(this, flushing, budgetMs);
  } finally {
    durations.push(performance.now() - began);
    // The parts it committed (all of them from `from` when it failed: none were).
    const to = this.flushing === flushing ? flushing.next : flushing.parts.length;
    runs.push(flushing.parts.slice(from, to).reduce((sum, part) => sum + part.runs.length, 0));
  }
};

export const commitTimes = {
  start() {
    durations.length = 0;
    runs.length = 0;
    recording = true;
  },
  /** Commits since `start`: how many, ms held (p50, p99, worst, total) and runs per commit (median, most). */
  stop() {
    recording = false;
    const sorted = [...durations].sort((a, b) => a - b);
    const at = (p) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? 0;
    const perCommit = [...runs].sort((a, b) => a - b);
    return {
      count: sorted.length,
      p50: at(0.5),
      p99: at(0.99),
      max: sorted.at(-1) ?? 0,
      totalMs: sorted.reduce((sum, value) => sum + value, 0),
      runsMedian: perCommit[Math.floor(perCommit.length / 2)] ?? 0,
      runsMax: perCommit.at(-1) ?? 0,
    };
  },
};
