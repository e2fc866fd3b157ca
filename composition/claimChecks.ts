import type { S3TraceStore } from '../adapters/s3/index.js';
import { ClaimCheckCodec } from '../adapters/temporal/claimCheckCodec.js';
import type { PayloadLimits } from './payloadLimits.js';

/** Room on top of MAX_RESULT_BYTES for what a stored payload carries besides its JSON (metadata, protobuf framing). */
const PAYLOAD_ENVELOPE_BYTES = 64 * 1024;

/**
 * The claim-check codec on the remote trace store's bucket and client (docs/large-payloads.md). Built the same way by
 * the API server and the worker, which must agree: one offloads what the other reads.
 */
export function claimCheckCodec(remoteTraceStore: S3TraceStore, config: { maxResultBytes: number; payloads: PayloadLimits }): ClaimCheckCodec {
  return new ClaimCheckCodec({
    store: remoteTraceStore.claimCheckStore({ maxObjectBytes: config.maxResultBytes + PAYLOAD_ENVELOPE_BYTES }),
    thresholdBytes: config.payloads.claimCheckThresholdBytes,
  });
}
