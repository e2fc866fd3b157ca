import { GetObjectCommand, HeadObjectCommand, PutObjectCommand, S3Client, type S3ClientConfig } from '@aws-sdk/client-s3';
import type { Readable } from 'node:stream';
import { TraceStoreUnavailableError } from '../../core/domain/errors.js';
import type { TraceKey, TraceRecord } from '../../core/domain/trace.js';
import { parseTraceRecord } from '../../core/trace/parseTrace.js';
import type { Logger } from '../../ports/logger.js';
import type { TraceStore } from '../../ports/traceStore.js';
import { describeFailure, isObjectMissing, isTransientFailure } from './s3Failures.js';
import { S3ClaimCheckStore } from './s3ClaimCheckStore.js';
import { readBodyCapped } from './s3Body.js';
import { normalizePrefix, objectKeyOf, s3Uri, traceObjectKey } from './s3Locations.js';

export interface S3TraceStoreOptions {
  /** TRACE_S3_BUCKET. */
  bucket: string;
  /** TRACE_S3_PREFIX: the folder traces go under; surrounding slashes are ignored. @default '' */
  prefix?: string;
  /** S3_REGION. @default 'us-east-1' */
  region?: string;
  /** S3_ENDPOINT, for S3-compatible servers (`http(s)://host:port`). Unset: AWS S3. */
  endpoint?: string;
  /** S3_FORCE_PATH_STYLE: `endpoint/bucket/key` instead of `bucket.endpoint/key`; most S3 look-alikes need it. @default false */
  forcePathStyle?: boolean;
  /** Explicit credentials; unset: the SDK's credential chain (AWS_ACCESS_KEY_ID..., profiles, SSO, instance roles). */
  credentials?: S3ClientConfig['credentials'];
  /** Largest trace `read` loads; bigger objects are refused (by ContentLength, and again while streaming). @default 32 MiB */
  maxReadBytes?: number;
  /** Deadline of one locate or read call. @default 10000 */
  requestTimeoutMs?: number;
  /** Deadline of one upload attempt. @default 30000 */
  uploadTimeoutMs?: number;
  /** Upload attempts per write, the first included. @default 4 */
  uploadAttempts?: number;
  /** Wait before the second attempt; doubles after each failure. @default 200 */
  uploadRetryDelayMs?: number;
  /** Where failed attempts and refused reads are reported (with the run ids). */
  logger?: Logger;
}

const MIB = 1024 * 1024;

/** What `locate`/`read` throw when the store cannot answer; the HTTP layer answers 503 with Retry-After. */
function storeUnreachable(cause: unknown): Error {
  return new TraceStoreUnavailableError('the remote trace store is unreachable', { cause, retryAfterSeconds: 5 });
}

/**
 * Traces as JSON objects in an S3 bucket (AWS S3 or an S3-compatible server), at `s3://<bucket>/<traceObjectKey>`.
 * One S3Client per store (it pools connections). Every call carries a deadline, so a store that stops answering
 * costs a bounded wait, never a hung request or run.
 */
export class S3TraceStore implements TraceStore {
  readonly kind = 'remote' as const;
  readonly bucket: string;
  readonly prefix: string;
  private readonly client: S3Client;
  private readonly maxReadBytes: number;
  private readonly requestTimeoutMs: number;
  private readonly uploadTimeoutMs: number;
  private readonly uploadAttempts: number;
  private readonly uploadRetryDelayMs: number;
  private readonly logger: Logger | undefined;

  constructor(options: S3TraceStoreOptions) {
    if (typeof options?.bucket !== 'string' || !/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(options.bucket)) {
      throw new TypeError('S3TraceStore: options.bucket must be an S3 bucket name (3-63 of a-z, 0-9, ".", "-")');
    }
    if (options.prefix !== undefined && typeof options.prefix !== 'string') throw new TypeError('S3TraceStore: options.prefix must be a string');
    if (options.region !== undefined && (typeof options.region !== 'string' || options.region.length === 0)) {
      throw new TypeError('S3TraceStore: options.region must be a non-empty string');
    }
    if (options.endpoint !== undefined && !isHttpUrl(options.endpoint)) {
      throw new TypeError(`S3TraceStore: options.endpoint must be an http(s) URL, got ${JSON.stringify(options.endpoint)}`);
    }
    this.bucket = options.bucket;
    this.prefix = normalizePrefix(options.prefix ?? '');
    this.maxReadBytes = positiveInteger('maxReadBytes', options.maxReadBytes, 32 * MIB);
    this.requestTimeoutMs = positiveInteger('requestTimeoutMs', options.requestTimeoutMs, 10_000);
    this.uploadTimeoutMs = positiveInteger('uploadTimeoutMs', options.uploadTimeoutMs, 30_000);
    this.uploadAttempts = positiveInteger('uploadAttempts', options.uploadAttempts, 4);
    this.uploadRetryDelayMs = positiveInteger('uploadRetryDelayMs', options.uploadRetryDelayMs, 200);
    this.logger = options.logger;
    this.client = new S3Client({
      region: options.region ?? 'us-east-1',
      ...(options.endpoint ? { endpoint: options.endpoint } : {}),
      forcePathStyle: options.forcePathStyle ?? false,
      ...(options.credentials ? { credentials: options.credentials } : {}),
      // Since SDK 3.729 checksums and aws-chunked trailers are on by default; many S3 look-alikes reject them.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
      // Uploads are retried by write() with its own budget; SDK retries on top would multiply the wait.
      maxAttempts: 1,
    });
  }

  objectKeyOf(key: TraceKey): string {
    return traceObjectKey(this.prefix, key);
  }

  /** Uploads the trace, retrying transient failures with backoff; throws the last failure when all attempts fail. */
  async write(key: TraceKey, trace: TraceRecord): Promise<string> {
    const objectKey = this.objectKeyOf(key);
    // A string body: the SDK signs it in one piece, which every S3 look-alike accepts (streams need chunked signing).
    const body = JSON.stringify(trace);
    let delayMs = this.uploadRetryDelayMs;
    for (let attempt = 1; ; attempt += 1) {
      try {
        await this.client.send(
          new PutObjectCommand({ Bucket: this.bucket, Key: objectKey, Body: body, ContentType: 'application/json' }),
          { abortSignal: AbortSignal.timeout(this.uploadTimeoutMs) },
        );
        return s3Uri(this.bucket, objectKey);
      } catch (error) {
        const willRetry = attempt < this.uploadAttempts && isTransientFailure(error);
        this.logger?.warn('trace upload attempt failed', {
          workflowId: key.workflowId,
          runId: key.runId,
          bucket: this.bucket,
          objectKey,
          attempt,
          willRetry,
          error: describeFailure(error),
        });
        if (!willRetry) {
          throw new Error(`upload of s3://${this.bucket}/${objectKey} failed after ${attempt} attempt(s): ${describeFailure(error)}`, {
            cause: error,
          });
        }
        await sleep(delayMs);
        delayMs *= 2;
      }
    }
  }

  /** HeadObject: the URI when the object exists, `undefined` when it does not; throws when the store cannot answer. */
  async locate(key: TraceKey): Promise<string | undefined> {
    const objectKey = this.objectKeyOf(key);
    try {
      await this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: objectKey }), {
        abortSignal: AbortSignal.timeout(this.requestTimeoutMs),
      });
      return s3Uri(this.bucket, objectKey);
    } catch (error) {
      if (isObjectMissing(error)) return undefined;
      throw storeUnreachable(error);
    }
  }

  /**
   * The trace at an `s3://` location of this bucket; `undefined` when it is gone, is not one of ours, or is larger
   * than maxReadBytes (like the local store: the API must not buffer unbounded objects). Throws when unreachable, and
   * CorruptTraceError when the object is not a trace.
   */
  async read(location: string): Promise<TraceRecord | undefined> {
    const objectKey = objectKeyOf(location, this.bucket);
    if (!objectKey) return undefined;
    // One deadline for the whole read, body included: a server that stalls mid-body must not hang the request.
    const deadline = AbortSignal.timeout(this.requestTimeoutMs);
    let text: string | undefined;
    try {
      const answer = await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: objectKey }), { abortSignal: deadline });
      if (answer.ContentLength !== undefined && answer.ContentLength > this.maxReadBytes) {
        (answer.Body as Readable | undefined)?.destroy();
        this.refuseLargeTrace(location, answer.ContentLength);
        return undefined;
      }
      text = (await readBodyCapped(answer.Body as Readable | undefined, this.maxReadBytes, deadline))?.toString('utf8');
    } catch (error) {
      if (isObjectMissing(error)) return undefined;
      throw storeUnreachable(error);
    }
    if (text === undefined) {
      this.refuseLargeTrace(location);
      return undefined;
    }
    return parseTraceRecord(text, location);
  }

  /**
   * The claim-check store in this bucket (under `<prefix>/.claim-checks/`), on this store's client: one connection pool
   * and one set of S3 settings for traces and offloaded payloads.
   */
  claimCheckStore(options: { maxObjectBytes: number; timeoutMs?: number }): S3ClaimCheckStore {
    return new S3ClaimCheckStore({ client: this.client, bucket: this.bucket, prefix: this.prefix, ...options });
  }

  /** Releases the client's pooled sockets (at shutdown, and in tests so the process can exit). */
  close(): void {
    this.client.destroy();
  }

  private refuseLargeTrace(location: string, size?: number): void {
    this.logger?.warn('remote trace is larger than the read limit; not loaded', {
      location,
      ...(size !== undefined ? { size } : {}),
      maxReadBytes: this.maxReadBytes,
    });
  }
}

function positiveInteger(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value < 1) throw new TypeError(`S3TraceStore: options.${name} must be a positive integer, got ${value}`);
  return value;
}

function isHttpUrl(value: unknown): boolean {
  if (typeof value !== 'string') return false;
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolvePromise) => setTimeout(resolvePromise, ms));
}
