import { createServer, type AddressInfo } from 'node:net';
import { request } from 'undici';
import type { ExpositionSource } from '../../metrics/combinedExposition.js';

/** A scrape of the SDK's exporter on loopback answers in milliseconds; past this it is reported, not waited for. */
const SCRAPE_TIMEOUT_MS = 5_000;

/**
 * A loopback address for the Temporal SDK's own Prometheus exporter, on a port free now: the exporter is native code
 * that takes a fixed address and does not say which port it bound, so the port is chosen here. Only this process
 * scrapes it (sdkMetricsSource) and serves the text beside its own at METRICS_PORT (docs/operations.md).
 */
export async function loopbackExporterAddress(): Promise<string> {
  const probe = createServer();
  await new Promise<void>((resolve, reject) => {
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', resolve);
  });
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return `127.0.0.1:${port}`;
}

/** The SDK exporter's text (task slots, pollers, task latencies, workflow outcomes: `temporal_*`). */
export function sdkMetricsSource(bindAddress: string): ExpositionSource {
  return {
    name: 'Temporal SDK',
    async text() {
      const response = await request(`http://${bindAddress}/metrics`, { headersTimeout: SCRAPE_TIMEOUT_MS, bodyTimeout: SCRAPE_TIMEOUT_MS });
      const text = await response.body.text();
      if (response.statusCode !== 200) throw new Error(`its exporter at ${bindAddress} answered ${response.statusCode}`);
      return text;
    },
  };
}
