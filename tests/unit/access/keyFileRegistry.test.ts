// API_KEYS_FILE read again (docs/security.md): when the file changes (written in place, or a new file renamed over it
// as editors do) and on reload(); a file that cannot be used keeps the previous keys and logs one error line.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdirSync, mkdtempSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KeyFileRegistry } from '../../../adapters/access/keyFileRegistry.js';
import { authTokenKey } from '../../../adapters/access/keyTable.js';
import { CapturingLogger } from '../../support/logLines.js';
import { TestKeyFile, testKey, type TestKey } from '../../support/keyFiles.js';
import { eventually } from '../../support/eventually.js';

interface Context {
  file: TestKeyFile;
  logger: CapturingLogger;
  registry: KeyFileRegistry;
}

const oldKey = testKey('ci-2026', ['start']);
const newKey = testKey('ci-2027', ['start', 'read']);
const DEBOUNCE_MS = 50;

const reload = suite<Context>('the key file, read again');

reload.before.each(async (context) => {
  context.file = new TestKeyFile([oldKey]);
  context.logger = new CapturingLogger();
  context.registry = await KeyFileRegistry.open({ path: context.file.path, logger: context.logger, debounceMs: DEBOUNCE_MS });
});

reload.after.each(({ registry, file }) => {
  registry.close();
  file.remove();
});

const ids = (registry: KeyFileRegistry, keys: readonly TestKey[]) => keys.map((key) => registry.lookup(key.secret)?.id);

reload('a new file renamed over the old one (an editor\'s save): rotation with two keys, then revocation', async ({ file, registry, logger }) => {
  assert.equal(ids(registry, [oldKey, newKey]), ['ci-2026', undefined]);
  file.write([oldKey, newKey]);
  await eventually('the new key is in force', () => registry.lookup(newKey.secret) !== undefined, { intervalMs: 20 });
  assert.is(registry.lookup(oldKey.secret)?.id, 'ci-2026', 'both keys live at once');
  file.write([newKey]);
  await eventually('the old key is revoked', () => registry.lookup(oldKey.secret) === undefined, { intervalMs: 20 });
  assert.is(registry.lookup(newKey.secret)?.id, 'ci-2027');
  const reloaded = logger.lines.filter((line) => line.msg === 'access keys reloaded');
  assert.ok(reloaded.length >= 2, JSON.stringify(logger.lines));
  assert.equal(reloaded.at(-1)!.keys, ['ci-2027']);
  assert.not.ok(JSON.stringify(logger.lines).includes(newKey.secret), 'no secret is logged');
  assert.not.ok(JSON.stringify(logger.lines).includes(newKey.entry.sha256), 'no hash is logged');
});

reload('the file written in place is read again once it has been quiet', async ({ file, registry }) => {
  writeFileSync(file.path, JSON.stringify({ keys: [newKey.entry] }));
  await eventually('the new key is in force', () => registry.lookup(newKey.secret) !== undefined, { intervalMs: 20 });
  assert.is(registry.lookup(oldKey.secret), undefined);
});

reload('a change that cannot be used keeps the previous keys and logs one error line naming the entry', async ({ file, registry, logger }) => {
  file.write([oldKey, { ...newKey, entry: { ...newKey.entry, id: 'ci-2026' } }]);
  await eventually('the refusal is logged', () => logger.lines.some((line) => line.level === 'error'), { intervalMs: 20 });
  const errors = logger.lines.filter((line) => line.level === 'error');
  assert.is(errors.length, 1, JSON.stringify(errors));
  assert.match(String(errors[0]!.error), /keys\[1\] \(id "ci-2026"\): id is already used by keys\[0\]/);
  assert.equal(errors[0]!.keys, ['ci-2026'], 'the keys still in force');
  assert.is(registry.lookup(oldKey.secret)?.id, 'ci-2026', 'the previous keys stay');
  assert.is(registry.lookup(newKey.secret), undefined);
  // A half-written file (as an editor that writes in place leaves it for a moment) is no different.
  file.writeText('{"keys": [');
  assert.is(await registry.reload('signal'), 'kept');
  assert.is(registry.lookup(oldKey.secret)?.id, 'ci-2026');
  // Fixed, it is taken.
  file.write([newKey]);
  await eventually('the fixed file is taken', () => registry.lookup(newKey.secret) !== undefined, { intervalMs: 20 });
});

reload('reload() (SIGHUP) reads the file at once, and says when nothing changed; a removed file keeps the keys', async ({ file, registry, logger }) => {
  registry.close(); // no watcher: only reload() reads the file here
  writeFileSync(file.path, JSON.stringify({ keys: [newKey.entry] }));
  assert.is(await registry.reload('signal'), 'reloaded');
  assert.is(registry.lookup(newKey.secret)?.id, 'ci-2027');
  assert.is(registry.lookup(oldKey.secret), undefined);
  assert.equal(logger.lines.at(-1)!.trigger, 'signal');
  file.remove();
  assert.is(await registry.reload('signal'), 'kept');
  assert.match(String(logger.lines.at(-1)!.error), /cannot be read/);
  assert.is(registry.lookup(newKey.secret)?.id, 'ci-2027', 'the keys in force stay');
});

reload('a burst of changes is read once, after it', async ({ file, registry, logger }) => {
  for (let index = 0; index < 10; index += 1) file.write(index % 2 === 0 ? [oldKey, newKey] : [oldKey]);
  file.write([newKey]);
  await eventually('the last state is in force', () => registry.lookup(oldKey.secret) === undefined, { intervalMs: 20 });
  await new Promise((resolve) => setTimeout(resolve, DEBOUNCE_MS * 4));
  const reads = logger.lines.filter((line) => line.msg === 'access keys reloaded' || line.level === 'error');
  assert.ok(reads.length <= 2, `read ${reads.length} times: ${JSON.stringify(reads)}`);
});

reload.run();

const mounted = suite('the key file of a mounted volume');

mounted('a Kubernetes Secret or ConfigMap update (a `..data` symlink swapped; no event names the file) is read', async () => {
  // The layout kubelet makes: keys.json -> ..data/keys.json, ..data -> ..<timestamp>/, swapped by renaming a new link.
  const dir = mkdtempSync(join(tmpdir(), 'flowgate-keys-volume-'));
  const version = (name: string, keys: readonly TestKey[]) => {
    mkdirSync(join(dir, name));
    writeFileSync(join(dir, name, 'keys.json'), JSON.stringify({ keys: keys.map((key) => key.entry) }));
  };
  version('..2026_11_28_01', [oldKey]);
  symlinkSync('..2026_11_28_01', join(dir, '..data'));
  symlinkSync('..data/keys.json', join(dir, 'keys.json'));
  const registry = await KeyFileRegistry.open({ path: join(dir, 'keys.json'), logger: new CapturingLogger(), debounceMs: DEBOUNCE_MS });
  try {
    assert.is(registry.lookup(oldKey.secret)?.id, 'ci-2026');
    version('..2026_11_28_02', [newKey]);
    symlinkSync('..2026_11_28_02', join(dir, '..data_tmp'));
    renameSync(join(dir, '..data_tmp'), join(dir, '..data'));
    rmSync(join(dir, '..2026_11_28_01'), { recursive: true });
    await eventually('the new version is in force', () => registry.lookup(newKey.secret) !== undefined, { intervalMs: 20 });
    assert.is(registry.lookup(oldKey.secret), undefined);
  } finally {
    registry.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

mounted.run();

const reserved = suite('the key file beside API_AUTH_TOKEN');

reserved('the token stays a key through reloads, and the file may not take its id', async () => {
  const file = new TestKeyFile([oldKey]);
  const logger = new CapturingLogger();
  const registry = await KeyFileRegistry.open({ path: file.path, logger, reserved: [authTokenKey('the-admin-token')] });
  try {
    assert.is(registry.lookup('the-admin-token')?.id, 'token');
    file.write([{ ...newKey, entry: { ...newKey.entry, id: 'token' } }]);
    assert.is(await registry.reload('signal'), 'kept');
    assert.match(String(logger.lines.at(-1)!.error), /id is already used by API_AUTH_TOKEN/);
    file.write([newKey]);
    assert.is(await registry.reload('signal'), 'reloaded');
    assert.equal([registry.lookup('the-admin-token')?.id, registry.lookup(newKey.secret)?.id, registry.lookup(oldKey.secret)], ['token', 'ci-2027', undefined]);
  } finally {
    registry.close();
    file.remove();
  }
});

reserved.run();
