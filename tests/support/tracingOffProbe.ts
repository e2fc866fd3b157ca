/**
 * Run as a child process by tests/contract/tracing.test.ts: starts the test API (the engine under test) without
 * OTEL_EXPORTER_OTLP_ENDPOINT, runs a workflow from a request that brings a traceparent, and prints, as its last line,
 * the OpenTelemetry modules the process loaded (none is the point: tracing off costs no import). The API facade
 * `@opentelemetry/api` does not count: prom-client (metrics, on by default) depends on it for exemplars, and without
 * an SDK it records nothing.
 */
import { createRequire } from 'node:module';
import { call } from './http.js';
import { startTestApi } from './engines.js';

const api = await startTestApi();
let status: number;
try {
  const response = await call(api, 'POST', '/workflow/run', {
    json: { workflowName: 'arithmetic', input: { n: 1 }, timeout: 30 },
    headers: { traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' },
  });
  status = response.status;
} finally {
  await api.close();
}
// The OpenTelemetry packages are CommonJS: whatever imported them, they are in the CommonJS cache.
const loaded = Object.keys(createRequire(import.meta.url).cache).filter(
  (path) => (path.includes('/@opentelemetry/') && !path.includes('/@opentelemetry/api/')) || path.includes('interceptors-opentelemetry'),
);
console.log(JSON.stringify({ status, loaded }));
