import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { traceRelativePath } from '../../core/trace/traceKey.js';

const startedAt = new Date('2026-03-04T05:06:07.089Z');
const runId = '6b0f6f43-4b1f-4d55-9a35-4c7bd7c8c001';

test('trace files are <workflowName>/<ISO start>_<workflowId>_<runId>.json', () => {
  assert.is(traceRelativePath({ workflowName: 'summarise', workflowId: 'order-17', runId, startedAt }),
    `summarise/2026-03-04T05:06:07.089Z_order-17_${runId}.json`);
});

test('an id cannot climb out of the trace directory', () => {
  const path = traceRelativePath({ workflowName: '..', workflowId: '../../etc/passwd', runId, startedAt });
  assert.not.ok(path.split('/').includes('..'));
  assert.is(path.split('/').length, 2);
});

test('long ids are shortened to a file name every file system accepts, never splitting an escape', () => {
  for (const workflowId of ['x'.repeat(1000), 'ü'.repeat(400), `a${'%'.repeat(300)}`]) {
    const fileName = traceRelativePath({ workflowName: 'w', workflowId, runId, startedAt }).split('/')[1]!;
    assert.ok(Buffer.byteLength(fileName) < 255, `${fileName.length}`);
    assert.not.throws(() => decodeURIComponent(fileName));
  }
});

test.run();
