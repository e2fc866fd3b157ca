import { RawValue } from '@temporalio/common';
import { defaultPayloadConverter, type PayloadConverter } from '@temporalio/workflow';
import { RESULT_TRACE_METADATA_KEY, type TraceLocation } from '../protocol.js';

/**
 * What a run that completed returns to Temporal: its output, encoded as the default converter encodes it, with the
 * location of its trace in the payload's metadata (RESULT_TRACE_METADATA_KEY), so the API that waits on the run names
 * the trace from the closing event alone. The output itself when the worker did not answer where the trace goes.
 */
export function resultReportingTrace(output: unknown, location: TraceLocation | undefined, converter: PayloadConverter = defaultPayloadConverter): unknown {
  if (!location || !passesRawValuesThrough(converter)) return output;
  const result = new RawValue(output, converter);
  const report = converter.toPayload(location).data;
  if (report) result.payload.metadata = { ...result.payload.metadata, [RESULT_TRACE_METADATA_KEY]: report };
  return result;
}

const passThrough = new WeakMap<PayloadConverter, boolean>();

/**
 * Whether the converter that encodes the run's result hands a RawValue's payload over as it is. It does when this
 * module and the workflow runtime share one copy of @temporalio/common; a project holding two copies would otherwise
 * get the RawValue object itself encoded as the result, so then the output goes as it is.
 */
function passesRawValuesThrough(converter: PayloadConverter): boolean {
  let passes = passThrough.get(converter);
  if (passes === undefined) {
    const probe = new RawValue(null, converter);
    passes = converter.toPayload(probe) === probe.payload;
    passThrough.set(converter, passes);
  }
  return passes;
}
