import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { HookFileError, loadHookFiles } from '../../../adapters/hooks/hookFiles.js';
import { rejection } from '../../support/rejection.js';

const RECORDING_HOOKS = fileURLToPath(new URL('../../fixtures/hooks/recordingHooks.ts', import.meta.url));

async function withProject(files: Record<string, string>, body: (dir: string) => Promise<void>): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'flowgate-hookfiles-'));
  try {
    for (const [name, content] of Object.entries(files)) await writeFile(join(dir, name), content);
    await body(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

test('hook files from package.json (relative to the project) and from code, each once', async () => {
  await withProject({ 'package.json': JSON.stringify({ flowgate: { hookFiles: [RECORDING_HOOKS] } }) }, async (dir) => {
    const hooks = await loadHookFiles({ projectDir: dir, hookFiles: [RECORDING_HOOKS] });
    assert.is(hooks.length, 1);
    assert.is(hooks[0]!.kind, 'hooks');
  });
  await withProject({}, async (dir) => assert.equal(await loadHookFiles({ projectDir: dir }), []));
});

test('a declared hook file that is missing, fails to import or lacks defineHooks(): HookFileError naming the file', async () => {
  await withProject(
    {
      'package.json': JSON.stringify({ flowgate: { hookFiles: ['./nowhere.js'] } }),
      'plain.mjs': 'export default { kind: "other" };\n',
      'broken.mjs': 'export default ;\n',
    },
    async (dir) => {
      const missing = await rejection(loadHookFiles({ projectDir: dir }));
      assert.instance(missing, HookFileError);
      assert.match(missing.message, /hook file .*nowhere\.js cannot be imported/);
      const plain = await rejection(loadHookFiles({ hookFiles: [join(dir, 'plain.mjs')] }));
      assert.instance(plain, HookFileError);
      assert.match(plain.message, /plain\.mjs must default-export defineHooks/);
      const broken = await rejection(loadHookFiles({ hookFiles: [join(dir, 'broken.mjs')] }));
      assert.instance(broken, HookFileError);
      assert.match(broken.message, /broken\.mjs cannot be imported/);
    },
  );
});

test('a malformed flowgate.hookFiles or package.json: HookFileError naming the manifest', async () => {
  await withProject({ 'package.json': JSON.stringify({ flowgate: { hookFiles: './one.js' } }) }, async (dir) => {
    const error = await rejection(loadHookFiles({ projectDir: dir }));
    assert.instance(error, HookFileError);
    assert.match(error.message, /"flowgate\.hookFiles" must be an array of file paths/);
  });
  await withProject({ 'package.json': '{ nope' }, async (dir) => {
    const error = await rejection(loadHookFiles({ projectDir: dir }));
    assert.instance(error, HookFileError);
    assert.match(error.message, /package\.json is not valid JSON/);
  });
});

test.run();
