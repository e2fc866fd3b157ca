// Summarises a V8 .cpuprofile (node --cpu-prof): the functions with the most self time, as a markdown table.
// Usage: node --import tsx bench/profileSummary.ts <file.cpuprofile> [top=25]
import { readFile } from 'node:fs/promises';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
}

const [file, topArg] = process.argv.slice(2);
if (!file) throw new Error('usage: profileSummary.ts <file.cpuprofile> [top]');
const profile = JSON.parse(await readFile(file, 'utf8')) as { nodes: ProfileNode[]; samples: number[] };
const hits = new Map<string, number>();
for (const node of profile.nodes) {
  const { functionName, url, lineNumber } = node.callFrame;
  const where = url ? `${url.replace(/^.*\/(node_modules|work\/main)\//, '$1/').replace(/^file:\/\//, '')}:${lineNumber + 1}` : '';
  const key = `${functionName || '(anonymous)'} ${where}`.trim();
  hits.set(key, (hits.get(key) ?? 0) + (node.hitCount ?? 0));
}
const total = [...hits.values()].reduce((sum, count) => sum + count, 0);
const rows = [...hits.entries()].sort((a, b) => b[1] - a[1]).slice(0, Number(topArg ?? 25));
process.stdout.write('| self % | function |\n|---|---|\n');
for (const [key, count] of rows) process.stdout.write(`| ${((100 * count) / total).toFixed(1)} | \`${key}\` |\n`);
