import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { z } from 'zod';
import { workflow, type WorkflowDefinition } from '../../../core/definition/index.js';
import { checkOutput } from '../../../adapters/temporal/sandbox/runOutcome.js';
import { entrySource } from '../../../adapters/temporal/worker/entrySource.js';

// The result limits the sandbox applies before completing a run (a result Temporal would refuse fails the run by
// name instead of being refused over and over).
const blob = workflow({
  name: 'blob',
  description: 'returns a blob',
  inputSchema: z.object({}),
  outputSchema: z.object({ blob: z.string() }),
  fn: async () => ({ blob: '' }),
}) as unknown as WorkflowDefinition;
const output = (chars: number) => ({ blob: 'b'.repeat(chars) });
const jsonBytes = (chars: number) => JSON.stringify(output(chars)).length;

test('without a payload limit only MAX_RESULT_BYTES applies', () => {
  assert.equal(checkOutput(blob, output(100), 1_000), { ok: true, value: output(100) });
  const tooBig = checkOutput(blob, output(2_000), 1_000);
  assert.equal(tooBig.ok ? undefined : tooBig.failure.name, 'ResultTooLargeError');
  assert.match(tooBig.ok ? '' : tooBig.failure.message, /more than MAX_RESULT_BYTES \(1000\)/);
});

test('with a payload limit (no claim-check store) a result over it fails by name, saying what lets it pass', () => {
  assert.equal(checkOutput(blob, output(100), 10_000, jsonBytes(100)), { ok: true, value: output(100) });
  const over = checkOutput(blob, output(101), 10_000, jsonBytes(100));
  assert.is(over.ok, false);
  if (over.ok) return;
  assert.is(over.failure.name, 'ResultTooLargeError');
  assert.is(
    over.failure.message,
    `The result of workflow blob is ${jsonBytes(101)} bytes of JSON, more than the ${jsonBytes(100)} bytes Temporal takes per payload ` +
      '(TEMPORAL_MAX_PAYLOAD_BYTES); configure remote traces (TRACE_S3_BUCKET) on the API and the workers to pass larger results as claim checks',
  );
  // MAX_RESULT_BYTES is checked first: its message is the one a result over both gets.
  const overBoth = checkOutput(blob, output(5_000), 1_000, 500);
  assert.match(overBoth.ok ? '' : overBoth.failure.message, /MAX_RESULT_BYTES \(1000\)/);
});

test('the entry module bakes the payload limit in only when the worker has one', () => {
  const base = { sandboxRuntimePath: '/sandbox/index.js', workflows: [] };
  assert.match(entrySource({ ...base, maxResultBytes: 10 }), /createWorkflowDispatcher\(definitions, \{"maxResultBytes":10\}\);/);
  assert.match(entrySource({ ...base, maxResultBytes: 10, maxPayloadBytes: 5 }), /createWorkflowDispatcher\(definitions, \{"maxResultBytes":10,"maxPayloadBytes":5\}\);/);
});

test.run();
