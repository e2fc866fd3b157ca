import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdir, mkdtemp, readFile, rm, statfs, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { FsTraceStore } from '../../adapters/fs/index.js';
import { isLocalFilesystemType, isOnLocalFilesystem } from '../../adapters/fs/localFilesystem.js';
import type { TraceRecord } from '../../core/domain/trace.js';
import { CorruptTraceError } from '../../core/trace/parseTrace.js';

const key = { workflowName: 'demo', workflowId: 'a/b', runId: '6b0f6f43-4b1f-4d55-9a35-4c7bd7c8c001', startedAt: new Date('2026-01-02T03:04:05.000Z') };
const record: TraceRecord = {
  workflowId: 'a/b', runId: key.runId, workflowName: 'demo', input: { x: 1 }, output: 2, error: null,
  startedAt: key.startedAt.toISOString(), closedAt: key.startedAt.toISOString(), steps: [],
};

test('writes, locates and reads a trace under the directory', async () => {
  const directory = await mkdtemp(join(tmpdir(), 'fg-fs-'));
  try {
    const store = new FsTraceStore({ directory });
    assert.is(await store.locate(key), undefined);
    const path = await store.write(key, record);
    assert.ok(path.startsWith(directory));
    assert.is(path, join(directory, 'demo', `2026-01-02T03:04:05.000Z_a%2Fb_${key.runId}.json`));
    assert.is(await store.locate(key), path);
    assert.equal(await store.read(path), record);
    assert.equal(JSON.parse(await readFile(path, 'utf8')), record);
  } finally {
    await rm(directory, { recursive: true, force: true });
  }
});

test('never reads outside its directory, nor files over the cap', async () => {
  const directory = await mkdtemp(join(tmpdir(), 'fg-fs-'));
  const outside = await mkdtemp(join(tmpdir(), 'fg-out-'));
  try {
    await writeFile(join(outside, 'secret.json'), '{"s":1}'); // under the cap: only the directory rule keeps it out
    const store = new FsTraceStore({ directory, maxReadBytes: 10 });
    assert.is(await store.read(join(outside, 'secret.json')), undefined);
    assert.is(await store.read(join(directory, '..', 'x.json')), undefined);
    const path = await store.write(key, record);
    assert.is(await store.read(path), undefined, 'over maxReadBytes');
    assert.is(await store.read(join(directory, 'missing.json')), undefined);
    // A forged path that climbs out through the trace's own directory, and a link planted inside that points out.
    assert.is(await store.read(join(directory, 'demo', '..', '..', basename(outside), 'secret.json')), undefined);
    await symlink(join(outside, 'secret.json'), join(directory, 'demo', 'planted.json'));
    assert.is(await store.read(join(directory, 'demo', 'planted.json')), undefined, 'a link out of the directory is not followed');
    await symlink(join(outside), join(directory, 'linked-dir'));
    assert.is(await store.read(join(directory, 'linked-dir', 'secret.json')), undefined, 'nor a linked directory');
  } finally {
    await rm(directory, { recursive: true, force: true });
    await rm(outside, { recursive: true, force: true });
  }
});

test('read: a truncated file or JSON that is not a trace is a CorruptTraceError naming the file; a file gone since is forgotten', async () => {
  const directory = await mkdtemp(join(tmpdir(), 'fg-fs-'));
  try {
    const store = new FsTraceStore({ directory });
    const path = await store.write(key, record);
    const full = await readFile(path, 'utf8');
    for (const corrupt of [full.slice(0, 20), '', 'null', '[]', '{"workflowId": 1}', JSON.stringify({ ...record, startedAt: 'yesterday' })]) {
      await writeFile(path, corrupt);
      const error = await store.read(path).then(() => undefined, (caught: unknown) => caught);
      assert.instance(error, CorruptTraceError, JSON.stringify(corrupt));
      assert.ok((error as Error).message.includes(path), 'the message names the file');
    }
    await rm(path);
    assert.is(await store.locate(key), path, 'a recent write is located from memory');
    assert.is(await store.read(path), undefined);
    assert.is(await store.locate(key), undefined, 'once a read found it gone, locate asks the disk');
  } finally {
    await rm(directory, { recursive: true, force: true });
  }
});

test('owns: paths under its directory, not another host\'s TRACE_DIR nor a climb out of its own', () => {
  const store = new FsTraceStore({ directory: '/srv/api/traces' });
  assert.ok(store.owns('/srv/api/traces/demo/x.json'));
  assert.not.ok(store.owns('/srv/worker/traces/demo/x.json'));
  assert.not.ok(store.owns('/srv/api/traces/../secrets.json'));
  assert.not.ok(store.owns('/srv/api/traces'));
});

test('a missing directory option is named', () => {
  assert.throws(() => new FsTraceStore({ directory: '' }), /options\.directory/);
});

test('a trace directory removed after the first write is made again; a recent write is located without a stat, an older one with', async () => {
  const directory = await mkdtemp(join(tmpdir(), 'fg-fs-'));
  try {
    let now = 1_000_000;
    const store = new FsTraceStore({ directory, now: () => now });
    const path = await store.write(key, record);
    await rm(join(directory, 'demo'), { recursive: true, force: true });
    assert.is(await store.locate(key), path, 'written moments ago: trusted without asking the disk');
    now += 10_000;
    assert.is(await store.locate(key), undefined, 'after the memory of recent writes, the disk answers');
    assert.is(await store.write(key, record), path, 'the removed directory is made again');
    assert.equal(await store.read(path), record);
  } finally {
    await rm(directory, { recursive: true, force: true });
  }
});

test('locate on a trace written by another process: a file is named, a directory or a missing file is not', async () => {
  const directory = await mkdtemp(join(tmpdir(), 'fg-fs-'));
  try {
    const writer = new FsTraceStore({ directory });
    const path = await writer.write(key, record);
    // A store of its own, as the API beside a worker: no memory of the write, so the filesystem answers.
    const reader = new FsTraceStore({ directory });
    assert.is(await reader.locate(key), path);
    assert.is(await reader.locate({ ...key, runId: 'another-run' }), undefined);
    const directoryInstead = { ...key, runId: 'a-directory' };
    await mkdir(reader.pathOf(directoryInstead), { recursive: true });
    assert.is(await reader.locate(directoryInstead), undefined);
  } finally {
    await rm(directory, { recursive: true, force: true });
  }
});

test('a directory made after the first lookup is looked in once it exists; a file in the way is no trace', async () => {
  const parent = await mkdtemp(join(tmpdir(), 'fg-later-'));
  const directory = join(parent, 'traces');
  try {
    const reader = new FsTraceStore({ directory });
    assert.is(await reader.locate(key), undefined);
    const path = await new FsTraceStore({ directory }).write(key, record);
    assert.is(await reader.locate(key), path);
    // The workflow's directory replaced by a file: ENOTDIR, read as no trace.
    await rm(join(directory, key.workflowName), { recursive: true });
    await writeFile(join(directory, key.workflowName), 'not a directory');
    assert.is(await reader.locate(key), undefined);
  } finally {
    await rm(parent, { recursive: true, force: true });
  }
});

test('local filesystems: disks and memory are local; network, FUSE and unknown types are not', async () => {
  for (const local of [0xef53, 0x58465342, 0x9123683e, 0x01021994, 0x794c7630]) assert.ok(isLocalFilesystemType(local), local.toString(16));
  for (const remote of [0x6969 /* nfs */, 0xfe534d42 /* smb2 */, 0x65735546 /* fuse */, 0x00c36400 /* ceph */, 0x01021997 /* 9p */, 0]) {
    assert.not.ok(isLocalFilesystemType(remote), remote.toString(16));
  }
  // A directory not made yet is not judged by its parent: a network mount may appear there before the first trace.
  assert.is(await isOnLocalFilesystem(join(tmpdir(), 'fg-not-made-yet', 'traces')), undefined);
  assert.is(await isOnLocalFilesystem(tmpdir()), isLocalFilesystemType(Number((await statfs(tmpdir())).type)));
  // /proc (procfs) is not a place for traces.
  assert.is(await isOnLocalFilesystem('/proc/self'), false);
});

test.run();
