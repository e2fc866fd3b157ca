import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { installedPackages, NO_MANIFEST } from '../../../adapters/workflowSources/installedPackages.js';

async function write(file: string, content: string): Promise<void> {
  await mkdir(dirname(file), { recursive: true });
  await writeFile(file, content);
}

test('every package directly under node_modules, scoped and symlinked ones too, sorted by name', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'flowgate-installed-'));
  try {
    const modules = join(dir, 'node_modules');
    await write(join(modules, 'zeta', 'package.json'), '{"name":"zeta"}');
    await write(join(modules, 'alpha', 'package.json'), '{"name":"alpha","version":"1.0.0"}');
    await write(join(modules, '@scope', 'b', 'package.json'), '{"name":"@scope/b"}');
    await write(join(modules, '@scope', 'a', 'package.json'), '{"name":"@scope/a"}');
    // npm link / file: dependencies are symlinks to directories elsewhere, a whole scope possibly among them.
    await write(join(dir, 'linked', 'package.json'), '{"name":"linked"}');
    await symlink(join(dir, 'linked'), join(modules, 'linked'), 'dir');
    await write(join(dir, 'linked-scope', 'c', 'package.json'), '{"name":"@linked/c"}');
    await symlink(join(dir, 'linked-scope'), join(modules, '@linked'), 'dir');
    await symlink(join(dir, 'nowhere'), join(modules, 'dangling'), 'dir');
    // Bookkeeping, plain files and nested node_modules are not packages of the project.
    await write(join(modules, '.bin', 'tool'), '#!/bin/sh\n');
    await write(join(modules, '.cache', 'x', 'package.json'), '{}');
    await write(join(modules, '.package-lock.json'), '{}');
    await write(join(modules, 'stray-file.js'), '');
    await write(join(modules, 'alpha', 'node_modules', 'nested', 'package.json'), '{"name":"nested"}');
    await write(join(modules, 'no-manifest', 'index.js'), '');
    await write(join(modules, 'broken', 'package.json'), '{ "name": ');

    const found = await installedPackages(dir);
    assert.equal(
      found.map(({ name }) => name),
      ['@linked/c', '@scope/a', '@scope/b', 'alpha', 'broken', 'linked', 'no-manifest', 'zeta'],
    );
    const byName = new Map(found.map((pkg) => [pkg.name, pkg]));
    assert.is(byName.get('@scope/a')!.dir, join(modules, '@scope', 'a'));
    assert.equal(byName.get('alpha')!.manifest, { name: 'alpha', version: '1.0.0' });
    assert.is(byName.get('alpha')!.manifestError, undefined);
    assert.is(byName.get('linked')!.dir, join(modules, 'linked'), 'the installed path, not the link target');
    assert.equal(byName.get('linked')!.manifest, { name: 'linked' });
    assert.equal(byName.get('@linked/c')!.manifest, { name: '@linked/c' });
    assert.is(byName.get('no-manifest')!.manifest, undefined);
    assert.is(byName.get('no-manifest')!.manifestError, NO_MANIFEST);
    assert.is(byName.get('broken')!.manifest, undefined);
    assert.match(byName.get('broken')!.manifestError!, /not valid JSON/);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('a project without node_modules has no packages', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'flowgate-installed-'));
  try {
    assert.equal(await installedPackages(dir), []);
    assert.equal(await installedPackages(join(dir, 'does-not-exist')), []);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test.run();
