import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { FetchWebhookSender, webhookSignature } from '../../adapters/webhook/index.js';

async function withTarget(status: number, run: (url: string, received: { headers: IncomingMessage['headers']; body: string }[]) => Promise<void>) {
  const received: { headers: IncomingMessage['headers']; body: string }[] = [];
  const server = createServer(async (req, res) => {
    let body = '';
    for await (const chunk of req) body += chunk;
    received.push({ headers: req.headers, body });
    res.statusCode = status;
    res.end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    await run(`http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, received);
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
}

const call = { url: '', workflowId: 'wf', runId: 'r', workflowName: 'approval', payload: { q: 1 }, idempotencyKey: 'wf:r:webhook-1' };

test('posts the call, signed with HMAC-SHA256 over "<timestamp>.<body>"', async () => {
  await withTarget(202, async (url, received) => {
    await new FetchWebhookSender({ signingSecret: 'k', nowSeconds: () => 1700000000 }).send({ ...call, url });
    const [request] = received;
    assert.ok(request);
    assert.equal(JSON.parse(request.body), { workflowId: 'wf', runId: 'r', workflowName: 'approval', payload: { q: 1 } });
    assert.is(request.headers['content-type'], 'application/json');
    assert.is(request.headers['idempotency-key'], 'wf:r:webhook-1');
    assert.is(request.headers['x-flowgate-timestamp'], '1700000000');
    assert.is(request.headers['x-flowgate-signature'], webhookSignature('k', 1700000000, request.body));
  });
});

test('unsigned without a secret; 5xx is retryable, 4xx is not', async () => {
  await withTarget(503, async (url, received) => {
    const error = await new FetchWebhookSender().send({ ...call, url }).catch((e: Error) => e);
    assert.instance(error, Error);
    assert.is((error as Error & { nonRetryable?: boolean }).nonRetryable, undefined);
    assert.is(received[0]?.headers['x-flowgate-signature'], undefined);
  });
  await withTarget(400, async (url) => {
    const error = await new FetchWebhookSender().send({ ...call, url }).catch((e: Error) => e);
    assert.is((error as Error & { nonRetryable?: boolean }).nonRetryable, true);
  });
});

test.run();
