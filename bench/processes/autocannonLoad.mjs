// Figure 1's second load generator: autocannon (the load generator most node:http benchmarks quote), beside the
// undici one of load.ts, so the ratio does not rest on one client's costs. Its own process, as load.ts.
// Usage: node bench/processes/autocannonLoad.mjs '{"url":...,"connections":50,"seconds":5}' → one LoadResult JSON line.
import autocannon from 'autocannon';

const spec = JSON.parse(process.argv[2] ?? '{}');
if (!spec.url) throw new Error('usage: autocannonLoad.mjs \'{"url":...,"connections":50,"seconds":5}\'');
const result = await autocannon({ url: spec.url, connections: spec.connections, duration: spec.seconds, pipelining: 1 });
const answered = result['2xx'];
const errors = result.non2xx + result.errors + result.timeouts;
const statuses = { '1xx': result['1xx'], '2xx': answered, '3xx': result['3xx'], '4xx': result['4xx'], '5xx': result['5xx'] };
// autocannon's latency percentiles are over every response; with no errors (the bench's case) that is the 2xx ones.
process.stdout.write(
  `${JSON.stringify({ requests: answered, errors, statuses, seconds: result.duration, rps: answered / result.duration, p50: result.latency.p50, p99: result.latency.p99 })}\n`,
);
