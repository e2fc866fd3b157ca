// Types for the runner's modules, so the TypeScript tests can import them. Keep in step with the JSDoc in the .mjs files.

export interface Counts {
  passed: number;
  failed: number;
  skipped: number;
}

export function stripAnsi(text: string): string;
export function parseSummary(output: string): Counts | undefined;
export function hasUvuSummary(text: string): boolean;
export function suiteCounts(outcome: { output: string; code: number; stopped?: string }): Counts;
export function failureExcerpt(outcome: { output: string; code: number; stopped?: string }): string | undefined;
export function formatDuration(ms: number): string;
export function suiteLine(name: string, counts: Counts, ms: number, note?: string): string;
export function totalLine(totals: Counts): string;
export function suiteTimeLimit(limits: { suiteLimitMs: number; budgetMs: number; elapsedMs: number }): number;
export function minutesFromEnv(value: string | undefined, defaultMinutes: number): number;
export function coverageMeasured(output: string): boolean;

export function killRunningSuites(): void;
export function runSuiteProcess(options: {
  command: string;
  args: string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
  timeLimitMs: number;
  exitAfterSummaryMs?: number;
  echo?: boolean;
}): Promise<{ code: number; output: string; signal?: string; stopped?: string }>;

export interface SuiteSpec {
  name: string;
  dir: string;
  pattern?: string;
  env?: Record<string, string>;
  needs?: 'temporal';
  node?: string;
  long?: boolean;
  shards?: number;
  minutes?: number;
  uses?: string[];
  coverage?: boolean;
}
export type Job = SuiteSpec & { pattern: string; shard?: { index: number; of: number; files: string[] } };
export const DEFAULT_PATTERN: string;
export function splitIntoShards(files: { name: string; weight: number }[], count: number): string[][];
export function jobsOf(suite: SuiteSpec, files: { name: string; weight: number }[]): Job[];
export function longestFirst(jobs: Job[]): Job[];
export function nextJob(waiting: Job[], running: Job[]): Job | undefined;
export function testFilesOf(dir: string, pattern: string): { name: string; weight: number }[];
