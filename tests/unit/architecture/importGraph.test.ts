import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { importCircles, valueImportGraph } from '../../support/importGraph.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

test('no two source files of the product import values from each other, directly or around a circle', () => {
  const graph = valueImportGraph(root, ['core', 'ports', 'adapters', 'composition', 'ui/src']);
  assert.ok(graph.size > 200, `read ${graph.size} files`);
  assert.equal(importCircles(graph), []);
});

test('the check sees a value circle, and lets a circle of type-only imports pass', () => {
  const dir = mkdtempSync(join(tmpdir(), 'flowgate-graph-'));
  try {
    const write = (path: string, text: string) => {
      mkdirSync(dirname(join(dir, path)), { recursive: true });
      writeFileSync(join(dir, path), text);
    };
    write('src/a.ts', "import { b } from './b.js';\nexport const a = () => b();\n");
    write('src/b.ts', "import { c } from './nested/c.js';\nexport const b = () => c;\n");
    write('src/nested/c.ts', "import { a } from '../a.js';\nexport const c = a;\n");
    write('src/d.ts', "import type { E } from './e.js';\nexport interface D { e?: E }\n");
    write('src/e.ts', "import { type D } from './d.js';\nexport interface E { d?: D }\n");
    const circles = importCircles(valueImportGraph(dir, ['src']));
    assert.equal(circles, [['src/a.ts', 'src/b.ts', 'src/nested/c.ts']]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
