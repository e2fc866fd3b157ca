// Pure pieces of `npm test`'s scheduling: a suite becomes one job per shard, jobs run longest first on a few slots at
// once, and two jobs that use the same resource (dist/, which the package suite rebuilds and the browser suites
// serve) never overlap. Most suites wait on timers, sockets and servers rather than on the CPU, so a 2-core machine
// runs three at a time in about a third of the time (docs/testing.md).

/**
 * @typedef {object} SuiteSpec
 * @property {string} name
 * @property {string} dir
 * @property {string} [pattern] a regular expression over the file names under `dir` (default: every `*.test.ts`)
 * @property {Record<string, string>} [env]
 * @property {'temporal'} [needs]
 * @property {string} [node]
 * @property {boolean} [long]
 * @property {number} [shards] how many processes share its files (default 1)
 * @property {number} [minutes] about how long it takes on its own on the CI machine: the order jobs start in
 * @property {string[]} [uses] resources no other job may use at the same time
 * @property {boolean} [coverage] false: run without V8 coverage (a suite that repeats another on an older Node)
 */

/**
 * @typedef {SuiteSpec & { pattern: string, shard?: { index: number, of: number, files: string[] } }} Job
 */

export const DEFAULT_PATTERN = '\\.test\\.ts$';

/** @param {string} text */
const escapeRegExp = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * Splits files into `count` groups of about equal weight (the largest first into the lightest group); each group
 * keeps the files' own order.
 * @param {{ name: string, weight: number }[]} files
 * @param {number} count
 * @returns {string[][]}
 */
export function splitIntoShards(files, count) {
  const groups = Array.from({ length: Math.max(1, Math.min(count, files.length)) }, () => ({ weight: 0, names: /** @type {string[]} */ ([]) }));
  const heaviestFirst = [...files].sort((a, b) => b.weight - a.weight || a.name.localeCompare(b.name));
  for (const file of heaviestFirst) {
    const lightest = groups.reduce((best, group) => (group.weight < best.weight ? group : best));
    lightest.weight += file.weight;
    lightest.names.push(file.name);
  }
  const order = new Map(files.map((file, index) => [file.name, index]));
  return groups.map((group) => group.names.sort((a, b) => (order.get(a) ?? 0) - (order.get(b) ?? 0)));
}

/**
 * The jobs of one suite: itself, or one per shard, each with a pattern that matches exactly its files.
 * @param {SuiteSpec} suite
 * @param {{ name: string, weight: number }[]} files the suite's test files (relative to its dir) and their weights
 * @returns {Job[]}
 */
export function jobsOf(suite, files) {
  const pattern = suite.pattern ?? DEFAULT_PATTERN;
  const shards = suite.shards ?? 1;
  if (shards <= 1 || files.length <= 1) return [{ ...suite, pattern }];
  const groups = splitIntoShards(files, shards);
  return groups.map((names, index) => ({
    ...suite,
    name: `${suite.name} [${index + 1}/${groups.length}]`,
    minutes: (suite.minutes ?? 0) / groups.length,
    pattern: `^(${names.map(escapeRegExp).join('|')})$`,
    shard: { index, of: groups.length, files: names },
  }));
}

/**
 * Longest first, so the long jobs do not start last and hold the run open alone; ties keep the listed order.
 * @param {Job[]} jobs
 * @returns {Job[]}
 */
export function longestFirst(jobs) {
  return jobs.map((job, index) => ({ job, index })).sort((a, b) => (b.job.minutes ?? 0) - (a.job.minutes ?? 0) || a.index - b.index).map(({ job }) => job);
}

/**
 * The first waiting job that uses no resource a running job holds, or undefined when every waiting one must wait.
 * @param {Job[]} waiting in the order they should start
 * @param {Job[]} running
 * @returns {Job | undefined}
 */
export function nextJob(waiting, running) {
  const held = new Set(running.flatMap((job) => job.uses ?? []));
  return waiting.find((job) => !(job.uses ?? []).some((resource) => held.has(resource)));
}
