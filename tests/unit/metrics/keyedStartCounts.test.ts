// flowgate_runs_started_total and flowgate_idempotency_hits_total for keyed starts (docs/operations.md): a run is
// counted once, by the request that made it; every other request with its key, concurrent or later, is a hit.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createFlowgate, type Flowgate } from '../../../composition/embed/index.js';
import * as basic from '../../fixtures/workflows/basic.js';
import { CapturingLogger } from '../../support/logLines.js';
import { parseExposition, valueOf } from '../../support/prometheus.js';

async function counts(flowgate: Flowgate): Promise<{ started: number; hits: number }> {
  const response = await flowgate.fetchHandler(new Request('http://127.0.0.1/metrics'));
  assert.is(response.status, 200);
  const exposition = parseExposition(await response.text());
  return {
    started: valueOf(exposition, 'flowgate_runs_started_total', { workflow: 'echo' }),
    hits: valueOf(exposition, 'flowgate_idempotency_hits_total', { operation: 'start' }),
  };
}

test('three concurrent keyed starts: one run, counted started once and as two idempotency hits; a later retry is a third hit', async () => {
  const flowgate = await createFlowgate({ workflows: Object.values(basic), logger: new CapturingLogger(), env: { ENGINE: 'memory' } });
  try {
    const request = { workflowName: 'echo', input: { message: 'once' } };
    const answers = await Promise.all([1, 2, 3].map(() => flowgate.api.start(request, { idempotencyKey: 'k1' })));
    assert.is(new Set(answers.map(({ answer }) => answer.runId)).size, 1, 'one run for the three');
    assert.equal(await counts(flowgate), { started: 1, hits: 2 });
    await flowgate.api.start(request, { idempotencyKey: 'k1' });
    assert.equal(await counts(flowgate), { started: 1, hits: 3 });
    await flowgate.api.start(request, { idempotencyKey: 'k2' });
    assert.equal(await counts(flowgate), { started: 2, hits: 3 }, 'another key is another run');
  } finally {
    await flowgate.close();
  }
});

test.run();
