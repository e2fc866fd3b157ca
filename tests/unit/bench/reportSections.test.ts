import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { figureId, replaceFigures, splitReport } from '../../../bench/reportSections.js';

const REPORT = `# Performance

Measured by the full run.

## Figure 1: status

| a |
|---|

Met: fast.

## Figure 1b: autocannon

old 1b

## Figure 10: scale

old 10

## What the profiles showed

notes stay
`;

test('splitReport: the head, each figure section in order, and the hand-written notes after them', () => {
  const { head, sections, tail } = splitReport(REPORT);
  assert.is(head, '# Performance\n\nMeasured by the full run.\n\n');
  assert.equal(sections.map((section) => section.id), ['1', '1b', '10']);
  assert.is(sections[1]!.text, '## Figure 1b: autocannon\n\nold 1b\n\n');
  assert.is(tail, '## What the profiles showed\n\nnotes stay\n');
});

test('replaceFigures: measured figures replace theirs with a note, new ones go in numeric order, the rest is kept', () => {
  const updated = replaceFigures(
    REPORT,
    [
      { id: '10', text: '## Figure 10: scale\n\nnew 10\n' },
      { id: '2', text: '## Figure 2: starts\n\nnew 2\n' },
    ],
    '_partial_',
  );
  assert.equal(splitReport(updated).sections.map((section) => section.id), ['1', '1b', '2', '10']);
  assert.ok(updated.includes('## Figure 10: scale\n\n_partial_\n\nnew 10\n\n## What the profiles showed'), updated);
  assert.ok(updated.includes('## Figure 2: starts\n\n_partial_\n\nnew 2\n\n## Figure 10'), updated);
  assert.ok(updated.includes('old 1b') && !updated.includes('old 10'));
  assert.ok(updated.startsWith('# Performance\n\nMeasured by the full run.\n\n## Figure 1: status'));
  assert.ok(updated.endsWith('notes stay\n'));
});

test('figureId: the number a title names, and a title without one is refused', () => {
  assert.is(figureId('Figure 1b: autocannon'), '1b');
  assert.is(figureId('Figure 12: compression'), '12');
  assert.throws(() => figureId('Compression'), /Figure N:/);
});

test.run();
