import * as assert from 'uvu/assert';
import { uniqueId } from '../../support/http.js';
import { contractSuite, expectError, expectStatus, http, runSync, statusOf, wf } from '../../support/contract.js';

/*
 * The embedded engine's memory limits as a client sees them, over HTTP (docs/reliability.md): closed runs are
 * evicted by MEMORY_MAX_CLOSED_BYTES as by MEMORY_MAX_CLOSED_RUNS. (The history cap is a contract test on both
 * engines: tests/contract/historyLimit.test.ts.)
 */

const closedBytes = contractSuite('MEMORY_MAX_CLOSED_BYTES over HTTP', { MEMORY_MAX_CLOSED_BYTES: String(4_000_000) }, { engine: 'memory' });

closedBytes('old runs are evicted by their bytes; the newer ones stay readable in full', async ({ api }) => {
  const runs: { workflowId: string; runId: string }[] = [];
  for (let index = 0; index < 8; index += 1) {
    const input = { index, blob: 'y'.repeat(900_000) };
    const result = await runSync(api, { workflowName: 'any_input', workflowId: uniqueId(`closed-bytes-${index}`), input });
    assert.is(result.status, 'completed');
    runs.push(result);
  }
  // Each run keeps its 900 kB once (input, step input and output, result): four fit in 4 MB, a fifth does not.
  for (const run of runs.slice(0, 4)) expectError(await statusOf(api, run.workflowId), 404, 'WorkflowNotFoundError', { workflowId: run.workflowId });
  for (const [offset, run] of runs.slice(4).entries()) {
    expectStatus(await statusOf(api, run.workflowId), 200);
    const result = await http(api, 'GET', `${wf(run.workflowId, run.runId)}/result`);
    assert.equal(result.body.output, { index: offset + 4, blob: 'y'.repeat(900_000) });
    const input = await http(api, 'GET', `${wf(run.workflowId)}/input`);
    assert.is(input.body.input.blob.length, 900_000);
  }
});

closedBytes.run();
