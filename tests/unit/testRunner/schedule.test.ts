import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { jobsOf, longestFirst, nextJob, splitIntoShards, type Job } from '../../../scripts/testRunner/index.mjs';

const files = (weights: Record<string, number>) => Object.entries(weights).map(([name, weight]) => ({ name, weight }));

test('shards get about equal weight, each keeping the files in their own order', () => {
  const shards = splitIntoShards(files({ 'a.test.ts': 5, 'b.test.ts': 1, 'c.test.ts': 4, 'd.test.ts': 2, 'e.test.ts': 3 }), 2);
  assert.equal(shards, [['a.test.ts', 'b.test.ts', 'd.test.ts'], ['c.test.ts', 'e.test.ts']]);
  assert.equal(shards.flat().sort(), ['a.test.ts', 'b.test.ts', 'c.test.ts', 'd.test.ts', 'e.test.ts'], 'every file in exactly one shard');
  // Never an empty shard: fewer files than shards gives one shard per file.
  assert.equal(splitIntoShards(files({ 'only.test.ts': 1 }), 3), [['only.test.ts']]);
});

test("a sharded suite becomes one job per shard whose pattern matches exactly that shard's files", () => {
  const suite = { name: 'contract', dir: 'tests/contract', shards: 2, minutes: 10, env: { FLOWGATE_TEST_ENGINE: 'temporal' } };
  const all = files({ 'a.test.ts': 3, 'a.test.ts.bak.test.ts': 1, 'b-c.test.ts': 2 });
  const jobs = jobsOf(suite, all);
  assert.equal(jobs.map((job) => job.name), ['contract [1/2]', 'contract [2/2]']);
  assert.equal(jobs.map((job) => job.minutes), [5, 5]);
  for (const job of jobs) {
    assert.equal(job.env, suite.env);
    // uvu matches the pattern case-insensitively against the file's path under the dir.
    const matched = all.map((file) => file.name).filter((name) => new RegExp(job.pattern, 'i').test(name));
    assert.equal(matched, job.shard!.files);
  }
  assert.equal(jobs.flatMap((job) => job.shard!.files).sort(), all.map((file) => file.name).sort());
  // Unsharded: the suite itself, with its own pattern or the default one.
  assert.equal(jobsOf({ name: 'unit', dir: 'tests/unit' }, all), [{ name: 'unit', dir: 'tests/unit', pattern: '\\.test\\.ts$' }]);
  assert.is(jobsOf({ name: 'one', dir: 'd', pattern: 'x\\.test\\.ts$', shards: 3 }, files({ 'x.test.ts': 1 }))[0]!.pattern, 'x\\.test\\.ts$');
});

test('the longest jobs start first; equal ones keep their listed order', () => {
  const job = (name: string, minutes?: number): Job => ({ name, dir: 'tests', pattern: '', ...(minutes === undefined ? {} : { minutes }) });
  assert.equal(longestFirst([job('a', 1), job('b', 4), job('c'), job('d', 4), job('e', 2)]).map((each) => each.name), ['b', 'd', 'e', 'a', 'c']);
});

test('a job waits while a running job holds a resource it uses; others go past it', () => {
  const pack: Job = { name: 'package', dir: 'tests/package', pattern: '', uses: ['dist'] };
  const browser: Job = { name: 'browser', dir: 'tests/browser', pattern: '', uses: ['dist'] };
  const unit: Job = { name: 'unit', dir: 'tests/unit', pattern: '' };
  assert.is(nextJob([browser, unit], [pack]), unit);
  assert.is(nextJob([browser, unit], []), browser);
  assert.is(nextJob([browser], [pack, unit]), undefined);
  assert.is(nextJob([], [unit]), undefined);
});

test.run();
