import { createHash } from 'node:crypto';
import { GetObjectCommand, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import type { Readable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { TraceStoreUnavailableError } from '../../core/domain/errors.js';
import type { ClaimCheckStore } from '../../ports/claimCheckStore.js';
import { readBodyCapped } from './s3Body.js';
import { describeFailure, isObjectMissing, isTransientFailure } from './s3Failures.js';
import { claimCheckObjectKey, claimCheckPrefix } from './s3Locations.js';

export interface S3ClaimCheckStoreOptions {
  /** The remote trace store's client: one S3Client (one connection pool) per process. */
  client: S3Client;
  bucket: string;
  /** The trace prefix (normalized); objects go under `<prefix>/.claim-checks/`. */
  prefix: string;
  /** Largest object `get` loads (MAX_RESULT_BYTES plus the payload's envelope); a bigger one is refused. */
  maxObjectBytes: number;
  /** Deadline of one put or get, body and retries included. @default 30000 */
  timeoutMs?: number;
  /** Attempts of one put or get after a throttle, a 5xx or a dropped connection, the first included. @default 3 */
  attempts?: number;
  /** Wait before the second attempt; doubles after each failure. @default 100 */
  retryDelayMs?: number;
}

/** The object is not (or no longer) in the bucket: deleted, or expired by a lifecycle rule while still referenced. */
export class ClaimCheckMissingError extends Error {
  override name = 'ClaimCheckMissingError';
}

/** The object is there but is not what was stored (its content does not hash to its key), or is over the size cap. */
export class ClaimCheckCorruptError extends Error {
  override name = 'ClaimCheckCorruptError';
}

const SHA256_HEX = /^[0-9a-f]{64}$/;

/**
 * Claim-check objects in the trace bucket, content-addressed: the key is `<prefix>/.claim-checks/<sha256 of the bytes>`,
 * so two different payloads cannot share a key, a retried upload of the same payload rewrites the same object (no
 * orphan per retry), and `get` verifies what it read against the key. Nothing here deletes objects: their lifetime is
 * the bucket's lifecycle rule on the `.claim-checks/` prefix (docs/large-payloads.md).
 */
export class S3ClaimCheckStore implements ClaimCheckStore {
  readonly bucket: string;
  /** `<prefix>/.claim-checks/`: the prefix a lifecycle rule should expire. */
  readonly keyPrefix: string;
  private readonly client: S3Client;
  private readonly maxObjectBytes: number;
  private readonly timeoutMs: number;
  private readonly attempts: number;
  private readonly retryDelayMs: number;

  constructor(options: S3ClaimCheckStoreOptions) {
    if (!Number.isSafeInteger(options.maxObjectBytes) || options.maxObjectBytes < 1) {
      throw new TypeError(`S3ClaimCheckStore: options.maxObjectBytes must be a positive integer, got ${options.maxObjectBytes}`);
    }
    const timeoutMs = options.timeoutMs ?? 30_000;
    if (!Number.isSafeInteger(timeoutMs) || timeoutMs < 1) throw new TypeError(`S3ClaimCheckStore: options.timeoutMs must be a positive integer, got ${timeoutMs}`);
    this.client = options.client;
    this.bucket = options.bucket;
    this.keyPrefix = claimCheckPrefix(options.prefix);
    this.maxObjectBytes = options.maxObjectBytes;
    this.timeoutMs = timeoutMs;
    this.attempts = options.attempts ?? 3;
    this.retryDelayMs = options.retryDelayMs ?? 100;
    if (!Number.isSafeInteger(this.attempts) || this.attempts < 1) throw new TypeError(`S3ClaimCheckStore: options.attempts must be a positive integer, got ${this.attempts}`);
  }

  async put(bytes: Uint8Array): Promise<string> {
    const digest = createHash('sha256').update(bytes).digest('hex');
    const objectKey = claimCheckObjectKey(this.keyPrefix, digest);
    const deadline = AbortSignal.timeout(this.timeoutMs);
    try {
      // A Buffer body: signed in one piece, which every S3 look-alike accepts (streams need chunked signing). Retried:
      // the key is the content's, so a repeated put writes the same object.
      const body = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
      await this.retried(deadline, () =>
        this.client.send(new PutObjectCommand({ Bucket: this.bucket, Key: objectKey, Body: body, ContentType: 'application/octet-stream' }), { abortSignal: deadline }),
      );
    } catch (error) {
      throw unreachable(`storing claim-check object s3://${this.bucket}/${objectKey} failed: ${describeFailure(error)}`, error);
    }
    return digest;
  }

  async get(reference: string): Promise<Uint8Array> {
    if (!SHA256_HEX.test(reference)) throw new ClaimCheckCorruptError(`not a claim-check reference: ${JSON.stringify(reference.slice(0, 80))}`);
    const objectKey = claimCheckObjectKey(this.keyPrefix, reference);
    const location = `s3://${this.bucket}/${objectKey}`;
    // One deadline for the whole read, body included.
    const deadline = AbortSignal.timeout(this.timeoutMs);
    let bytes: Buffer;
    try {
      bytes = await this.retried(deadline, async () => {
        const answer = await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: objectKey }), { abortSignal: deadline });
        if (answer.ContentLength !== undefined && answer.ContentLength > this.maxObjectBytes) {
          (answer.Body as Readable | undefined)?.destroy();
          throw new ClaimCheckCorruptError(`${location} is ${answer.ContentLength} bytes, more than the ${this.maxObjectBytes} a payload may have`);
        }
        const body = await readBodyCapped(answer.Body as Readable | undefined, this.maxObjectBytes, deadline);
        if (!body) throw new ClaimCheckCorruptError(`${location} is more than the ${this.maxObjectBytes} bytes a payload may have`);
        return body;
      });
    } catch (error) {
      if (error instanceof ClaimCheckCorruptError) throw error;
      if (isObjectMissing(error)) {
        throw new ClaimCheckMissingError(`${location} is missing: a payload it held was deleted or expired while still referenced`, { cause: error });
      }
      throw unreachable(`reading claim-check object ${location} failed: ${describeFailure(error)}`, error);
    }
    if (createHash('sha256').update(bytes).digest('hex') !== reference) {
      throw new ClaimCheckCorruptError(`${location} does not hold the payload it was stored for (its SHA-256 differs)`);
    }
    return bytes;
  }

  /**
   * `attempt`, again after a failure that may pass (a throttle, a 5xx, a dropped connection) while `deadline` allows:
   * the S3 client makes one attempt per call (the trace uploads retry on their own, s3TraceStore.ts), and one throttled
   * request must not fail a start or a result read. What the bucket answered (missing, too large, altered) is final.
   */
  private async retried<T>(deadline: AbortSignal, attempt: () => Promise<T>): Promise<T> {
    for (let tries = 1; ; tries += 1) {
      try {
        return await attempt();
      } catch (error) {
        const final = error instanceof ClaimCheckCorruptError || isObjectMissing(error) || !isTransientFailure(error);
        if (final || tries >= this.attempts || deadline.aborted) throw error;
        try {
          await sleep(this.retryDelayMs * 2 ** (tries - 1), undefined, { signal: deadline });
        } catch {
          throw error;
        }
      }
    }
  }
}

function unreachable(message: string, cause: unknown): Error {
  return new TraceStoreUnavailableError(message, { cause, retryAfterSeconds: 5 });
}
