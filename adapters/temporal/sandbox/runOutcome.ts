import { ApplicationFailure } from '@temporalio/workflow';
import { invalidOutputFailure, outputNotJsonFailure, schemaVerdict } from '../../../core/definition/runRules.js';
import type { WorkflowDefinition } from '../../../core/definition/workflow.js';
import type { SerializedFailure } from '../../../core/domain/run.js';
import { payloadLimitMessage, RESULT_TOO_LARGE_ERROR, type FailureDetail, type TraceLocation } from '../protocol.js';

export type CheckedOutput = { ok: true; value: unknown } | { ok: false; failure: SerializedFailure };

/**
 * The output a run completes with: validated by the definition's outputSchema, a JSON value (as the embedded engine
 * delivers it), and no longer than MAX_RESULT_BYTES, so an oversized result fails in the run, not in the server.
 * `maxPayloadBytes` (set when the worker has no claim-check store): Temporal's per-payload limit, which a result must
 * not pass either, or its workflow task would be refused over and over instead of the run failing.
 */
export function checkOutput(definition: WorkflowDefinition, output: unknown, maxResultBytes: number, maxPayloadBytes?: number): CheckedOutput {
  const parsed = schemaVerdict(definition.outputSchema, output);
  if (!parsed.success) return { ok: false, failure: invalidOutputFailure(definition.name, parsed.issues) };
  let json: string | undefined;
  try {
    json = parsed.data === undefined ? undefined : JSON.stringify(parsed.data);
  } catch (error) {
    return { ok: false, failure: outputNotJsonFailure(definition.name, error) };
  }
  if (json === undefined) return { ok: true, value: undefined };
  const bytes = utf8Length(json);
  if (bytes > maxResultBytes) {
    const message = `The result of workflow ${definition.name} is ${bytes} bytes of JSON, more than MAX_RESULT_BYTES (${maxResultBytes})`;
    return { ok: false, failure: { name: RESULT_TOO_LARGE_ERROR, message } };
  }
  if (maxPayloadBytes !== undefined && bytes > maxPayloadBytes) {
    return { ok: false, failure: { name: RESULT_TOO_LARGE_ERROR, message: payloadLimitMessage(`workflow ${definition.name}`, bytes, maxPayloadBytes) } };
  }
  return { ok: true, value: JSON.parse(json) };
}

/**
 * The error a failing run throws: non-retryable, so the run FAILS instead of retrying its workflow task, with the
 * lossless flowgate failure as its first detail (protocol FailureDetail) and the original class name as its type.
 */
export function runFailure(failure: SerializedFailure, traceLocation?: TraceLocation): ApplicationFailure {
  const detail: FailureDetail = { flowgateFailure: failure, ...(traceLocation ? { traceLocation } : {}) };
  return ApplicationFailure.create({ type: failure.name, message: failure.message, nonRetryable: true, details: [detail] });
}

/** UTF-8 byte length without TextEncoder, which the workflow sandbox need not provide. */
export function utf8Length(text: string): number {
  let bytes = 0;
  for (let index = 0; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    if (code < 0x80) bytes += 1;
    else if (code < 0x800) bytes += 2;
    else if (code >= 0xd800 && code <= 0xdbff && index + 1 < text.length) {
      bytes += 4;
      index += 1;
    } else bytes += 3;
  }
  return bytes;
}
