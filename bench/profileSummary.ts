// Summarises a V8 .cpuprofile (node --cpu-prof): the functions with the most time, as a markdown table.
// Usage: node --import tsx bench/profileSummary.ts <file.cpuprofile> [top=25] [--inclusive] [--after=<seconds>] [--busy]
//   --inclusive      time in the function and everything it calls (a function counted once per sample, however
//                    deep it recurses), instead of its self time
//   --after=<s>      only the samples taken <s> seconds or more after the profile began (leaves start-up out)
//   --busy           percentages of the busy samples (all but "(idle)") instead of all samples
import { readFile } from 'node:fs/promises';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

const args = process.argv.slice(2);
const flags = new Set(args.filter((arg) => arg.startsWith('--')).map((arg) => arg.split('=')[0]));
const afterSeconds = Number(args.find((arg) => arg.startsWith('--after='))?.split('=')[1] ?? 0);
const [file, topArg] = args.filter((arg) => !arg.startsWith('--'));
if (!file) throw new Error('usage: profileSummary.ts <file.cpuprofile> [top] [--inclusive] [--after=<seconds>] [--busy]');
const profile = JSON.parse(await readFile(file, 'utf8')) as { nodes: ProfileNode[]; samples: number[]; timeDeltas: number[] };

const byId = new Map(profile.nodes.map((node) => [node.id, node]));
const parentOf = new Map<number, number>();
for (const node of profile.nodes) for (const child of node.children ?? []) parentOf.set(child, node.id);
const keyOf = (node: ProfileNode): string => {
  const { functionName, url, lineNumber } = node.callFrame;
  const where = url ? `${url.replace(/^.*\/(node_modules|dist|bench)\//, '$1/').replace(/^file:\/\//, '')}:${lineNumber + 1}` : '';
  return `${functionName || '(anonymous)'} ${where}`.trim();
};
const IDLE = new Set(['(idle)']);

const hits = new Map<string, number>();
let total = 0;
let busy = 0;
let elapsedMicros = 0;
profile.samples.forEach((id, index) => {
  elapsedMicros += profile.timeDeltas[index] ?? 0;
  if (elapsedMicros < afterSeconds * 1e6) return;
  total += 1;
  const leaf = byId.get(id)!;
  if (!IDLE.has(leaf.callFrame.functionName)) busy += 1;
  if (!flags.has('--inclusive')) {
    hits.set(keyOf(leaf), (hits.get(keyOf(leaf)) ?? 0) + 1);
    return;
  }
  const seen = new Set<string>();
  for (let node: ProfileNode | undefined = leaf; node; node = byId.get(parentOf.get(node.id) ?? -1)) {
    const key = keyOf(node);
    if (seen.has(key)) continue;
    seen.add(key);
    hits.set(key, (hits.get(key) ?? 0) + 1);
  }
});
const base = flags.has('--busy') ? busy : total;
const rows = [...hits.entries()].sort((a, b) => b[1] - a[1]).slice(0, Number(topArg ?? 25));
process.stdout.write(`${total} samples, ${busy} busy; % of ${flags.has('--busy') ? 'busy' : 'all'} samples\n\n`);
process.stdout.write(`| ${flags.has('--inclusive') ? 'inclusive' : 'self'} % | function |\n|---|---|\n`);
for (const [key, count] of rows) process.stdout.write(`| ${((100 * count) / base).toFixed(1)} | \`${key}\` |\n`);
