#!/usr/bin/env node
// Builds the browser UI (ui/) into dist/ui: one ES module bundle and one style sheet with content hashes in their
// names (served with a year of caching), the icon likewise, and index.html naming them. esbuild bundles and
// minifies (one request per kind, a first load of a few tens of KB); type checking is `tsc -p ui/tsconfig.json`.
// `node scripts/buildUi.mjs [outDir]`; part of `npm run build`.
import { createHash } from 'node:crypto';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = dirname(dirname(fileURLToPath(import.meta.url)));
export const DEFAULT_UI_OUT_DIR = join(root, 'dist', 'ui');

/**
 * @param {{ outDir?: string }} [options]
 * @returns {Promise<{ outDir: string, files: { name: string, bytes: number }[] }>}
 */
export async function buildUi(options = {}) {
  const outDir = resolve(options.outDir ?? DEFAULT_UI_OUT_DIR);
  const assetsDir = join(outDir, 'assets');
  await rm(outDir, { recursive: true, force: true });
  await mkdir(assetsDir, { recursive: true });
  const result = await build({
    absWorkingDir: root,
    entryPoints: { app: 'ui/src/main.ts', style: 'ui/src/styles.css' },
    outdir: assetsDir,
    entryNames: '[name]-[hash]',
    bundle: true,
    format: 'esm',
    target: ['es2022', 'chrome111', 'firefox113', 'safari16.4'],
    minify: true,
    legalComments: 'none',
    charset: 'utf8',
    metafile: true,
    logLevel: 'warning',
  });
  const outputs = Object.keys(result.metafile.outputs).map((path) => basename(path));
  const script = outputs.find((name) => name.startsWith('app-') && name.endsWith('.js'));
  const style = outputs.find((name) => name.startsWith('style-') && name.endsWith('.css'));
  if (!script || !style) throw new Error(`the UI build produced ${outputs.join(', ')}: no app-*.js or style-*.css`);
  const icon = await readFile(join(root, 'ui', 'favicon.svg'), 'utf8');
  const iconName = `icon-${createHash('sha256').update(icon).digest('hex').slice(0, 8).toUpperCase()}.svg`;
  await writeFile(join(assetsDir, iconName), icon);
  const template = await readFile(join(root, 'ui', 'index.html'), 'utf8');
  const page = template.replaceAll('%SCRIPT%', `assets/${script}`).replaceAll('%STYLE%', `assets/${style}`).replaceAll('%ICON%', `assets/${iconName}`);
  await writeFile(join(outDir, 'index.html'), page);
  const files = await Promise.all(
    ['index.html', ...[script, style, iconName].map((name) => `assets/${name}`)].map(async (name) => ({ name, bytes: (await readFile(join(outDir, name))).length })),
  );
  return { outDir, files };
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { outDir, files } = await buildUi(process.argv[2] ? { outDir: process.argv[2] } : {});
  process.stdout.write(`UI built into ${relative(process.cwd(), outDir) || '.'}: ${files.map((file) => `${file.name} ${(file.bytes / 1024).toFixed(1)} KiB`).join(', ')}\n`);
}
