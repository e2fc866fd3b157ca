// The test files of a suite, for splitting it into shards (schedule.mjs).
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

/**
 * A suite's test files (relative to its dir, as uvu names them), each weighed by its size: what its shards are split by.
 * @param {string} dir
 * @param {string} pattern a regular expression over those names (uvu matches it case-insensitively)
 * @returns {{ name: string, weight: number }[]}
 */
export function testFilesOf(dir, pattern) {
  const matches = new RegExp(pattern, 'i');
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((name) => matches.test(name) && statSync(join(dir, name)).isFile())
    .sort()
    .map((name) => ({ name, weight: statSync(join(dir, name)).size }));
}
