import { PayloadTooLargeError } from '../../../core/domain/errors.js';
import { utf8Length } from './runOutcome.js';

/**
 * TEMPORAL_MAX_PAYLOAD_BYTES when the worker has no claim-check store, baked into the bundle: the same for every run
 * of the worker, so one value for the module is right. Undefined: payloads go to the claim-check store past its
 * threshold, and Temporal meets none over its limit.
 */
let maxPayloadBytes: number | undefined;

/** Called once by the dispatcher when the bundle's entry module is evaluated. */
export function limitPayloads(bytes: number | undefined): void {
  maxPayloadBytes = bytes;
}

/**
 * Refuses, into workflow code, a value the run is about to hand Temporal (a step's input, a child's, the next run's of a
 * continue-as-new) that is over Temporal's per-payload limit: handed over, the server terminates the run or its
 * workflow task fails again and again, and the run never closes as flowgate's (no failure, trace or callback). Thrown,
 * it is a PayloadTooLargeError the code may catch; uncaught, the run fails with it.
 */
export function checkPayload(what: string, value: unknown): void {
  if (maxPayloadBytes === undefined) return;
  const json = JSON.stringify(value);
  if (json === undefined) return;
  const bytes = utf8Length(json);
  if (bytes <= maxPayloadBytes) return;
  throw new PayloadTooLargeError(
    `${what} is ${bytes} bytes of JSON, more than the ${maxPayloadBytes} bytes Temporal takes per payload (TEMPORAL_MAX_PAYLOAD_BYTES); ` +
      'configure remote traces (TRACE_S3_BUCKET) on the API and the workers to pass larger payloads as claim checks',
  );
}
