import { z } from 'zod';
import { envNumber } from './envNumber.js';

/** The large-payload settings both halves read (docs/large-payloads.md); they must agree between API and workers. */
export interface PayloadLimits {
  /** CLAIM_CHECK_THRESHOLD_BYTES: with remote traces on Temporal, a larger payload goes to S3 as a claim check. */
  claimCheckThresholdBytes: number;
  /**
   * TEMPORAL_MAX_PAYLOAD_BYTES: without a claim-check store, the largest input, step result or workflow result (bytes
   * of JSON) flowgate hands to Temporal. The default, 2,000,000, stays under Temporal's default per-payload limit
   * (`limit.blobSize.error`, 2 MiB, also Temporal Cloud's) with room for the payload's metadata. A larger input is
   * refused (413 PayloadTooLargeError), a larger result fails its run (ResultTooLargeError).
   */
  temporalMaxPayloadBytes: number;
}

export function payloadLimits(value: { CLAIM_CHECK_THRESHOLD_BYTES: number; TEMPORAL_MAX_PAYLOAD_BYTES: number }): PayloadLimits {
  return { claimCheckThresholdBytes: value.CLAIM_CHECK_THRESHOLD_BYTES, temporalMaxPayloadBytes: value.TEMPORAL_MAX_PAYLOAD_BYTES };
}

/** The variables behind PayloadLimits; shared by the API server's and the worker's configuration. */
export const payloadLimitsEnv = {
  CLAIM_CHECK_THRESHOLD_BYTES: envNumber(z.number().int().positive()).default(262_144),
  TEMPORAL_MAX_PAYLOAD_BYTES: envNumber(z.number().int().positive()).default(2_000_000),
};
