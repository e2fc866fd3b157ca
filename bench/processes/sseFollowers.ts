// Figure 5's followers: opens one server-sent events history stream per workflow id and holds them all open.
// Usage: sseFollowers.ts '{"baseUrl":...,"workflowIds":[...]}'  → {"open":N} once every stream has its headers;
// then counts the bytes that arrive until SIGTERM, when it prints {"bytes":N} and exits.
import { Agent, request } from 'undici';

const spec = JSON.parse(process.argv[2] ?? '{}') as { baseUrl: string; workflowIds: string[] };
const agent = new Agent({ connections: spec.workflowIds.length + 10, keepAliveTimeout: 60_000, bodyTimeout: 0, headersTimeout: 30_000 });
const controller = new AbortController();
let bytes = 0;
let failed = 0;

const streams = spec.workflowIds.map(async (workflowId) => {
  try {
    const response = await request(`${spec.baseUrl}/workflow/${encodeURIComponent(workflowId)}/history`, {
      dispatcher: agent,
      headers: { accept: 'text/event-stream' },
      signal: controller.signal,
    });
    if (response.statusCode !== 200) failed += 1;
    return response;
  } catch {
    failed += 1;
    return undefined;
  }
});
const responses = await Promise.all(streams);
process.stdout.write(`${JSON.stringify({ open: responses.filter(Boolean).length - failed, failed })}\n`);
for (const response of responses) {
  response?.body.on('data', (chunk: Buffer) => (bytes += chunk.length)).on('error', () => {});
}
process.once('SIGTERM', () => {
  process.stdout.write(`${JSON.stringify({ bytes })}\n`);
  controller.abort();
  void agent.destroy().finally(() => process.exit(0));
});
