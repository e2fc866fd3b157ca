// One measuring process's result (LoadResult in load.ts): throughput and latency percentiles of the successful
// requests. Plain JS so the in-process reference, which runs dist/ under plain node, shares it with the TS clients.

/**
 * @param {number[]} latencies milliseconds of each successful request (sorted in place)
 * @param {number} errors
 * @param {number} seconds how long the measurement ran
 * @param {Record<string, number>} [statuses]
 */
export function latencySummary(latencies, errors, seconds, statuses = {}) {
  latencies.sort((a, b) => a - b);
  const percentile = (p) => latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))] ?? 0;
  return { requests: latencies.length, errors, statuses, seconds, rps: latencies.length / seconds, p50: percentile(50), p99: percentile(99) };
}
