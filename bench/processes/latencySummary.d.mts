import type { LoadResult } from './load.js';
export function latencySummary(latencies: number[], errors: number, seconds: number, statuses?: Record<string, number>): LoadResult;
