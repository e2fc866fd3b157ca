import type { Payload, PayloadCodec } from '@temporalio/common';
import type { ClaimCheckStore } from '../../ports/claimCheckStore.js';
import proto from '@temporalio/proto';

/** The `encoding` of a payload that stands for another one kept in the claim-check store. */
export const CLAIM_CHECK_ENCODING = 'flowgate/claim-check';

const PayloadMessage = proto.temporal.api.common.v1.Payload;
const encoder = new TextEncoder();
const decoder = new TextDecoder();
const CLAIM_CHECK_ENCODING_BYTES = encoder.encode(CLAIM_CHECK_ENCODING);

export interface ClaimCheckCodecOptions {
  store: ClaimCheckStore;
  /** CLAIM_CHECK_THRESHOLD_BYTES: a payload whose encoded size is larger goes to the store. */
  thresholdBytes: number;
}

/** What the engine carries instead of an offloaded payload (the `data` of a claim-check payload, as JSON). */
interface ClaimCheckReference {
  ref: string;
  /** Size of the original payload, for people reading a raw history. */
  bytes: number;
}

/**
 * Temporal payload codec for large payloads (the claim-check pattern): a payload larger than the threshold is stored,
 * whole (metadata included, as its protobuf encoding), in the claim-check store, and Temporal carries a payload of a
 * few dozen bytes that names it. Registered in the dataConverter of the API's client and of every worker (codecs run
 * outside the workflow sandbox), so workflow code, steps and HTTP callers never see the difference.
 */
export class ClaimCheckCodec implements PayloadCodec {
  private readonly store: ClaimCheckStore;
  readonly thresholdBytes: number;

  constructor(options: ClaimCheckCodecOptions) {
    if (typeof options?.store?.put !== 'function' || typeof options.store.get !== 'function') {
      throw new TypeError('ClaimCheckCodec: options.store must be a ClaimCheckStore (put, get)');
    }
    if (!Number.isSafeInteger(options.thresholdBytes) || options.thresholdBytes < 1) {
      throw new TypeError(`ClaimCheckCodec: options.thresholdBytes must be a positive integer, got ${options.thresholdBytes}`);
    }
    this.store = options.store;
    this.thresholdBytes = options.thresholdBytes;
  }

  encode(payloads: Payload[]): Promise<Payload[]> {
    return Promise.all(payloads.map((payload) => this.encodeOne(payload)));
  }

  decode(payloads: Payload[]): Promise<Payload[]> {
    return Promise.all(payloads.map((payload) => (isClaimCheck(payload) ? this.redeem(payload) : payload)));
  }

  /**
   * Replaces, in place, every claim-check payload anywhere in a message read straight from Temporal's API (history
   * events, describe answers), where the SDK's data converter is not involved. Returns the same message.
   */
  async resolveIn<T>(message: T): Promise<T> {
    const pending: Promise<void>[] = [];
    visitPayloads(message, (payload) => {
      pending.push(
        this.redeem(payload).then((original) => {
          payload.metadata = original.metadata ?? {};
          payload.data = original.data ?? new Uint8Array(0);
        }),
      );
    });
    await Promise.all(pending);
    return message;
  }

  private async encodeOne(payload: Payload): Promise<Payload> {
    const bytes = PayloadMessage.encode(payload).finish();
    if (bytes.length <= this.thresholdBytes || isClaimCheck(payload)) return payload;
    const reference: ClaimCheckReference = { ref: await this.store.put(bytes), bytes: bytes.length };
    return { metadata: { encoding: CLAIM_CHECK_ENCODING_BYTES }, data: encoder.encode(JSON.stringify(reference)) };
  }

  private async redeem(payload: Payload): Promise<Payload> {
    const reference = JSON.parse(decoder.decode(payload.data ?? new Uint8Array(0))) as Partial<ClaimCheckReference>;
    if (typeof reference?.ref !== 'string') throw new TypeError('a claim-check payload without a reference');
    return PayloadMessage.decode(await this.store.get(reference.ref));
  }
}

function isClaimCheck(payload: Payload | null | undefined): boolean {
  const encoding: unknown = payload?.metadata?.['encoding'];
  if (!(encoding instanceof Uint8Array) || encoding.length !== CLAIM_CHECK_ENCODING_BYTES.length) return false;
  return encoding.every((byte, index) => byte === CLAIM_CHECK_ENCODING_BYTES[index]);
}

/** Calls `found` for every claim-check payload in a decoded protobuf message (plain objects and arrays). */
function visitPayloads(value: unknown, found: (payload: Payload) => void): void {
  if (typeof value !== 'object' || value === null || ArrayBuffer.isView(value)) return;
  if (Array.isArray(value)) {
    for (const item of value) visitPayloads(item, found);
    return;
  }
  if (isClaimCheck(value as Payload)) {
    found(value as Payload);
    return;
  }
  for (const key of Object.keys(value)) visitPayloads((value as Record<string, unknown>)[key], found);
}
