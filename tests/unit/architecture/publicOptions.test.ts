// Every option a caller of the package's public exports may leave out also takes `undefined` (`?: T | undefined`),
// so a project compiled with exactOptionalPropertyTypes (on in `tsc --init`) may pass `process.env.X` or a value
// that may be undefined: flowgate/client, flowgate/embed, flowgate/testing and flowgate (the definitions).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import ts from 'typescript';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { optionalPropertiesRefusingUndefined } from '../../support/optionalProperties.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const ENTRIES = ['adapters/client/index.ts', 'composition/embed/index.ts', 'composition/testing/index.ts', 'core/definition/index.ts'];

function repositoryOptions(): ts.CompilerOptions {
  const parsed = ts.getParsedCommandLineOfConfigFile(join(root, 'tsconfig.json'), {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} });
  if (!parsed) throw new Error('tsconfig.json does not parse');
  return parsed.options;
}

test('every optional property of the public input types takes undefined', () => {
  const { refusing, checked } = optionalPropertiesRefusingUndefined(root, ENTRIES.map((entry) => join(root, entry)), repositoryOptions());
  assert.ok(checked > 100, `${checked} optional properties checked`);
  assert.equal(refusing, []);
});

test('the check finds an option without | undefined, through a function, a class, a context type and an options type', () => {
  const dir = mkdtempSync(join(tmpdir(), 'flowgate-options-'));
  try {
    writeFileSync(
      join(dir, 'index.ts'),
      [
        'export interface Retry { attempts?: number; backoff?: number | undefined }',
        'export function start(options: { retry?: Retry | undefined; fn?: ((event: { seen?: boolean }) => void) | undefined }): void { void options; }',
        'export class Client { constructor(options: { token?: string }) { void options; } read(options: { runId?: string } = {}): void { void options; } }',
        'export interface Context { sleep(options: { ms?: number }): void }',
        'export interface ServeOptions { port?: number; nested?: { host?: string } | undefined }',
        'export interface Answer { fromServer?: string }',
      ].join('\n'),
    );
    const { refusing } = optionalPropertiesRefusingUndefined(dir, [join(dir, 'index.ts')], { strict: true, target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext });
    assert.equal(
      refusing.map((line) => line.replace(/ \(index\.ts:\d+\)$/, '')),
      [
        'index.ts: Client.read(options).runId',
        'index.ts: Context.sleep(options).ms',
        'index.ts: ServeOptions.nested.host',
        'index.ts: ServeOptions.port',
        'index.ts: start(options).retry.attempts',
        'new index.ts: Client(options).token',
      ],
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
