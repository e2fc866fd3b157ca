import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { coverageMeasured, failureExcerpt, minutesFromEnv, parseSummary, suiteCounts, suiteLine, suiteTimeLimit, totalLine } from '../../../scripts/testRunner/index.mjs';

const UVU_SUMMARY = '\n  Total:     12\n  Passed:    10\n  Skipped:   1\n  Duration:  3.2ms\n';

test("uvu's summary gives passed, failed and skipped", () => {
  assert.equal(parseSummary(UVU_SUMMARY), { passed: 10, failed: 1, skipped: 1 });
  assert.is(parseSummary('no summary at all'), undefined);
  // A test's own output of the same shape comes before uvu's summary, which is the one that counts.
  assert.equal(parseSummary(`  Total:     1\n  Passed:    1\n${UVU_SUMMARY}`), { passed: 10, failed: 1, skipped: 1 });
});

test('a suite that crashed, printed no summary or was stopped for time counts a failure', () => {
  const green = '\n  Total:     3\n  Passed:    3\n  Skipped:   0\n';
  assert.equal(suiteCounts({ output: green, code: 0 }), { passed: 3, failed: 0, skipped: 0 });
  assert.equal(suiteCounts({ output: green, code: 1 }), { passed: 3, failed: 1, skipped: 0 });
  assert.equal(suiteCounts({ output: green, code: 0, stopped: 'ran past its time limit of 1200 s' }), { passed: 3, failed: 1, skipped: 0 });
  assert.equal(suiteCounts({ output: 'Error: ENOENT', code: 0 }), { passed: 0, failed: 1, skipped: 0 });
  // Failures the suite reported are kept as they are, not doubled.
  assert.equal(suiteCounts({ output: UVU_SUMMARY, code: 1 }), { passed: 10, failed: 1, skipped: 1 });
});

test("the closing report repeats a failing suite's first failure, or a crashed suite's last lines", () => {
  const failed = [
    'page.test.ts',
    ' UI: the page  ✘   (0 / 1)',
    '',
    '  FAIL  UI: the page  "the first load transfers under 200 KB"',
    '    Expected 4, got 3  (is)',
    '    at Object.handler (/repo/tests/browser/page.test.ts:94:12)',
    '    at async Number.runner (file:///repo/node_modules/uvu/dist/index.mjs:78:5)',
    '',
    '  Total:     1',
    '  Passed:    0',
    '  Skipped:   0',
  ].join('\n');
  const excerpt = failureExcerpt({ output: failed, code: 1 })!;
  assert.ok(excerpt.startsWith('  FAIL  UI: the page  "the first load transfers under 200 KB"'), excerpt);
  assert.match(excerpt, /page\.test\.ts:94:12/);
  assert.not.match(excerpt, /node_modules\/uvu/, "uvu's own frames say nothing");

  // An unhandled rejection ends the process before any summary: its last lines say why.
  const crashed = ['actions.test.ts', ' UI: actions  • • •', ...Array.from({ length: 40 }, (_, i) => `log line ${i}`), 'Error: Target page, context or browser has been closed', '    at Request.sizes', ''].join('\n');
  const tail = failureExcerpt({ output: crashed, code: 1 })!.split('\n');
  assert.is(tail.length, 30);
  assert.is(tail.at(-2), 'Error: Target page, context or browser has been closed');

  // A long failure message (a fuzzer's whole report, then the server's error log) keeps its start and its end.
  const long = ['  FAIL  "schemathesis: no 5xx"', '    schemathesis exited with 1', ...Array.from({ length: 200 }, (_, i) => `    progress ${i}`), '    server error log (1 lines):', '    {"level":"error","status":503}', '    at Object.handler (/repo/tests/fuzz/schemathesis.test.ts:237:13)', '', '  Total:     1', '  Passed:    0'].join('\n');
  const cut = failureExcerpt({ output: long, code: 1 })!.split('\n');
  assert.is(cut.length, 30);
  assert.is(cut[0], '  FAIL  "schemathesis: no 5xx"');
  assert.match(cut[8]!, /… \d+ lines …/);
  assert.is(cut.at(-2), '    {"level":"error","status":503}');

  assert.is(failureExcerpt({ output: UVU_SUMMARY.replace('Passed:    10', 'Passed:    11'), code: 0 }), undefined, 'a green suite says nothing');
});

test('each suite line carries its time, and the last line is the totals', () => {
  assert.is(suiteLine('unit', { passed: 5, failed: 0, skipped: 0 }, 4_400), 'unit: 5 passed, 0 failed (4 s)');
  assert.is(
    suiteLine('contract', { passed: 2, failed: 1, skipped: 3 }, 395_000, '(ended by the runner)'),
    'contract: 2 passed, 1 failed, 3 skipped (6 min 35 s) (ended by the runner)',
  );
  assert.is(totalLine({ passed: 1033, failed: 0, skipped: 0 }), '1033 passed, 0 failed');
});

test("a suite's time limit is cut to what is left of the run's budget", () => {
  assert.is(suiteTimeLimit({ suiteLimitMs: 20 * 60_000, budgetMs: 80 * 60_000, elapsedMs: 10 * 60_000 }), 20 * 60_000);
  assert.is(suiteTimeLimit({ suiteLimitMs: 20 * 60_000, budgetMs: 80 * 60_000, elapsedMs: 75 * 60_000 }), 5 * 60_000);
  assert.is(suiteTimeLimit({ suiteLimitMs: 20 * 60_000, budgetMs: 80 * 60_000, elapsedMs: 81 * 60_000 }), 0);
});

test('limits from the environment: minutes when positive, the default otherwise', () => {
  assert.is(minutesFromEnv('1.5', 20), 90_000);
  for (const unusable of [undefined, '', '0', '-3', 'soon']) assert.is(minutesFromEnv(unusable, 20), 20 * 60_000, String(unusable));
});

test('a coverage floor counts only when c8 measured lines', () => {
  assert.ok(coverageMeasured('Statements   : 98.1% ( 140/143 )\nLines        : 98.33% ( 14083/14321 )\n'));
  assert.not.ok(coverageMeasured('Statements   : Unknown% ( 0/0 )\nLines        : Unknown% ( 0/0 )\n'));
  assert.not.ok(coverageMeasured('no summary'));
});

test.run();
