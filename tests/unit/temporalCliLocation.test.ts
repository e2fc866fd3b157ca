import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { locateTemporalCli, TemporalCliNotFoundError, temporalCliCacheDir } from '../../adapters/temporal/devServer/index.js';

async function executable(path: string): Promise<string> {
  await mkdir(join(path, '..'), { recursive: true });
  await writeFile(path, '#!/bin/sh\n');
  await chmod(path, 0o755);
  return path;
}

test('flowgate dev finds the Temporal CLI in TEMPORAL_CLI, then on PATH, then in ~/.cache/flowgate/bin', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'fg-cli-location-'));
  try {
    const home = join(dir, 'home');
    const cached = await executable(join(temporalCliCacheDir(home), 'temporal'));
    const onPath = await executable(join(dir, 'bin', 'temporal'));
    const named = await executable(join(dir, 'elsewhere', 'my-temporal'));
    const notExecutable = join(dir, 'bin2', 'temporal');
    await mkdir(join(dir, 'bin2'));
    await writeFile(notExecutable, '');
    assert.is(locateTemporalCli({ TEMPORAL_CLI: named, PATH: join(dir, 'bin') }, home), named);
    assert.is(locateTemporalCli({ PATH: `${join(dir, 'bin2')}:${join(dir, 'bin')}` }, home), onPath, 'a file that is not executable is passed over');
    assert.is(locateTemporalCli({ PATH: join(dir, 'nothing') }, home), cached);
    await rm(cached);
    const missing = (() => {
      try {
        locateTemporalCli({ PATH: join(dir, 'nothing') }, home);
      } catch (error) {
        return error as Error;
      }
      return undefined;
    })();
    assert.instance(missing, TemporalCliNotFoundError);
    assert.match(String(missing?.message), /found in none of: TEMPORAL_CLI \(unset\), temporal on PATH, .*home\/\.cache\/flowgate\/bin\/temporal; install the Temporal CLI there/);
    assert.throws(() => locateTemporalCli({ TEMPORAL_CLI: notExecutable, PATH: join(dir, 'bin') }, home), /TEMPORAL_CLI=.*bin2\/temporal \(not an executable file\)/, 'a wrong TEMPORAL_CLI is an error, not a reason to look elsewhere');
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test.run();
