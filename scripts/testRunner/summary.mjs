// Pure pieces of `npm test`'s report: reading uvu's summary, and the lines the runner prints at the end.

const ANSI = /\u001b\[[0-9;]*m/g;

/** @param {string} text */
export const stripAnsi = (text) => text.replace(ANSI, '');

/**
 * @typedef {object} Counts
 * @property {number} passed
 * @property {number} failed
 * @property {number} skipped
 */

/**
 * uvu's closing summary (`Total: N`, `Passed: N`, `Skipped: N`), or undefined when the suite never printed one. The
 * last one counts: a test may print text of the same shape before it.
 * @param {string} output without ANSI colours
 * @returns {Counts | undefined}
 */
export function parseSummary(output) {
  const summaryAt = [...output.matchAll(/^\s*Total:\s+\d+/gm)].at(-1)?.index;
  if (summaryAt === undefined) return undefined;
  const summary = output.slice(summaryAt);
  /** @param {string} label */
  const number = (label) => {
    const match = summary.match(new RegExp(`^\\s*${label}:\\s+(\\d+)`, 'm'));
    return match ? Number(match[1]) : undefined;
  };
  const total = number('Total');
  const passed = number('Passed');
  if (total === undefined || passed === undefined) return undefined;
  const skipped = number('Skipped') ?? 0;
  return { passed, failed: total - passed - skipped, skipped };
}

/** uvu's closing summary block, the last thing a suite prints. */
const UVU_SUMMARY_BLOCK = /^\s*Total:\s+\d+\s*\n\s*Passed:\s+\d+\s*\n\s*Skipped:\s+\d+\s*\n\s*Duration:\s+\S+/m;

/**
 * Whether `text` holds uvu's whole closing summary (Total, Passed, Skipped and Duration): the suite has finished.
 * @param {string} text without ANSI colours
 */
export const hasUvuSummary = (text) => UVU_SUMMARY_BLOCK.test(text);

/**
 * What a suite counts for. A suite that printed no summary, exited non-zero without a failure (a crash after the
 * summary), or was stopped by the runner counts at least one failure: a broken suite must never read as green.
 * @param {{ output: string, code: number, stopped?: string }} outcome
 * @returns {Counts}
 */
export function suiteCounts({ output, code, stopped }) {
  const summary = parseSummary(output);
  const counts = summary ?? { passed: 0, failed: 0, skipped: 0 };
  if ((code !== 0 || stopped || !summary) && counts.failed === 0) counts.failed = 1;
  return counts;
}

/** Lines of a failing suite's output the closing report repeats. */
const EXCERPT_LINES = 30;
/** Of a longer failure, its first lines (what failed) and its last (where a long message ends: the server's log). */
const EXCERPT_HEAD_LINES = 8;

/**
 * What a failing suite said, for the closing report: CI shows only the end of a long log, and a suite's own output
 * is far above it. The first failure uvu reported (its FAIL line and the message under it, without uvu's own stack
 * frames; a long one cut in the middle), or, when there is none (a crash, an unhandled rejection, a time limit), the
 * suite's last lines. Undefined for a suite that passed.
 * @param {{ output: string, code: number, stopped?: string }} outcome output without ANSI colours
 * @returns {string | undefined}
 */
export function failureExcerpt(outcome) {
  if (suiteCounts(outcome).failed === 0) return undefined;
  const lines = outcome.output.split('\n').map((line) => line.trimEnd());
  const firstFailure = lines.findIndex((line) => /^\s*FAIL\s/.test(line));
  if (firstFailure < 0) return lines.filter((line) => line.trim() !== '').slice(-EXCERPT_LINES).join('\n');
  const rest = lines.slice(firstFailure + 1);
  const end = rest.findIndex((line) => /^\s*FAIL\s/.test(line) || /^\s*Total:\s+\d+/.test(line));
  const block = [lines[firstFailure], ...(end < 0 ? rest : rest.slice(0, end))].filter((line) => !line.includes('/node_modules/uvu/'));
  while (block.length > 1 && block.at(-1)?.trim() === '') block.pop();
  if (block.length <= EXCERPT_LINES) return block.join('\n');
  const tail = block.slice(-(EXCERPT_LINES - EXCERPT_HEAD_LINES - 1));
  return [...block.slice(0, EXCERPT_HEAD_LINES), `    … ${block.length - EXCERPT_HEAD_LINES - tail.length} lines …`, ...tail].join('\n');
}

/** @param {number} ms */
export function formatDuration(ms) {
  const seconds = Math.round(ms / 1000);
  return seconds < 60 ? `${seconds} s` : `${Math.floor(seconds / 60)} min ${String(seconds % 60).padStart(2, '0')} s`;
}

/**
 * One line of the closing report.
 * @param {string} name
 * @param {Counts} counts
 * @param {number} ms
 * @param {string} [note] why it failed without its tests saying so (time limit, missing server).
 */
export function suiteLine(name, counts, ms, note) {
  const skipped = counts.skipped ? `, ${counts.skipped} skipped` : '';
  return `${name}: ${counts.passed} passed, ${counts.failed} failed${skipped} (${formatDuration(ms)})${note ? ` ${note}` : ''}`;
}

/**
 * The last line of every run, which CI reads.
 * @param {Counts} totals
 */
export function totalLine(totals) {
  return `${totals.passed} passed, ${totals.failed} failed${totals.skipped ? `, ${totals.skipped} skipped` : ''}`;
}

/**
 * How long the next suite may run: its own limit, cut to what is left of the run's budget.
 * @param {{ suiteLimitMs: number, budgetMs: number, elapsedMs: number }} limits
 * @returns {number} 0 when the budget is spent.
 */
export function suiteTimeLimit({ suiteLimitMs, budgetMs, elapsedMs }) {
  return Math.max(0, Math.min(suiteLimitMs, budgetMs - elapsedMs));
}

/**
 * A time limit in milliseconds, from a number of minutes in an environment variable, or from the default when that
 * is unset or not a positive number.
 * @param {string | undefined} value
 * @param {number} defaultMinutes
 */
export function minutesFromEnv(value, defaultMinutes) {
  const minutes = Number(value);
  return (value !== undefined && value !== '' && Number.isFinite(minutes) && minutes > 0 ? minutes : defaultMinutes) * 60_000;
}

/**
 * Whether c8's text summary measured any line: with no coverage data it prints `Unknown% ( 0/0 )` and its
 * floor check passes, which must not count as the floor met.
 * @param {string} output c8's text-summary, without ANSI colours
 */
export function coverageMeasured(output) {
  const lines = /^Lines\s*:\s*[\d.]+%\s*\(\s*\d+\/(\d+)\s*\)/m.exec(output);
  return lines !== null && Number(lines[1]) > 0;
}
