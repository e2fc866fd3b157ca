import { promisify } from 'node:util';
import {
  brotliCompress,
  brotliCompressSync,
  constants,
  createBrotliCompress,
  createGzip,
  gzip,
  gzipSync,
  type BrotliOptions,
  type ZlibOptions,
} from 'node:zlib';
import { preferredCoding, type Compressing, type ContentCoding } from './contentCoding.js';
import { appendVary } from './cors.js';
import { isStreamedBody, type HeaderValue, type HttpResponse } from './types.js';

/*
 * Compressed answers (docs/api.md, Compression): a JSON, text or SVG answer of at least COMPRESSION_THRESHOLD_CHARS
 * goes out in brotli or gzip when the request accepts one. The event stream never does: a compressor holds back what
 * it was given until it has enough to compress, and an event (or a keep-alive) must reach the client when it is sent.
 */

/**
 * Answers shorter than this many characters go out as they are, on the path they always took: compressing a status
 * answer would cost more CPU than its bytes cost the network. Characters are never more than a UTF-8 body's bytes.
 */
export const COMPRESSION_THRESHOLD_CHARS = 1024;

/**
 * Whole answers up to this many characters are compressed on the event loop. Handing one to the thread pool costs
 * 120 to 180 µs of CPU on top of the compression (2.5 times the work for 1 KiB, 1.5 times for 16 KiB, bench figure
 * 12's measurements); compressing 16 KiB takes the loop about 0.2 ms, less than serialising it did. Larger answers
 * are compressed in the thread pool, so a 200 KiB /metrics never holds other requests for milliseconds.
 */
const SYNC_COMPRESSION_MAX_CHARS = 16 * 1024;

/** zlib's default level: level 1 saved little CPU and made JSON answers a third larger. */
const GZIP_OPTIONS: ZlibOptions = { level: 6 };
/**
 * Brotli quality 4: 4 to 22 % smaller than gzip 6 on the API's JSON and text; quality 5 was a few per cent smaller
 * again for 1.5 to 2 times the CPU. Node's default (11) costs a hundred times more.
 */
const BROTLI_QUALITY = 4;
const STREAM_BROTLI_WINDOW_BITS = 18;

/** The compressed forms of answers with a strong ETag (the same bytes every time: the document, the UI's files). */
const KEPT_COMPRESSED_ANSWERS = 64;

/**
 * The coding the client rates best; on a tie (`gzip, deflate, br`, as browsers and curl send it), by what the answer
 * costs. One compressed for each request goes out in gzip: at the sizes API answers have (1 to 64 KiB) gzip 6 took
 * 0.6 to 0.9 times brotli 4's CPU (bench figure 12 and the measurements in docs/performance.md), and a streamed one
 * (a large history page, a trace, a result) keeps its compressor as long as its client takes to read, where gzip's
 * holds about 0.25 MiB and brotli's about 1 MiB. One compressed once and kept (a strong ETag: the OpenAPI document,
 * the UI's files) goes out in brotli, the smaller: its CPU is spent once.
 */
const PER_REQUEST_CODINGS: readonly Compressing[] = ['gzip', 'br'];
const KEPT_ANSWER_CODINGS: readonly Compressing[] = ['br', 'gzip'];

/** JSON (and `+json`), every text type but the event stream, SVG. */
const COMPRESSIBLE_TYPE = /^(?:application\/(?:[\w.-]+\+)?json|text\/(?!event-stream\s*(?:;|$))[\w.+-]+|image\/svg\+xml)\s*(?:;|$)/i;

export function isCompressibleType(contentType: string | undefined): boolean {
  return contentType !== undefined && COMPRESSIBLE_TYPE.test(contentType);
}

/** The HTTP app's compression of its answers: one instance per app (it keeps the compressed forms of static answers). */
export class ResponseCompression {
  private readonly kept = new Map<string, Uint8Array>();

  /**
   * Encodes `response` for a request that sent `acceptEncoding`, in place. Every answer of a compressible type (and
   * every 304, which carries the headers its 200 would) says `Vary: Accept-Encoding`, compressed or not, so a cache
   * keeps one copy per coding. Its ETag turns weak when a coding is chosen: a strong tag names one sequence of bytes
   * and the coded bytes are another (RFC 9110 8.8.3); `If-None-Match` compares weakly, so a copy in either coding
   * still revalidates. A HEAD answer carries what GET's would: the coding, and the coded length of a whole body.
   */
  async encode(response: HttpResponse, acceptEncoding: HeaderValue, head: boolean): Promise<void> {
    const { headers } = response;
    const notModified = response.status === 304;
    if (!notModified && !isCompressibleType(headers['content-type'])) return;
    if (headers['content-encoding'] !== undefined) return;
    appendVary(headers, 'Accept-Encoding');
    const { body } = response;
    const etag = headers['etag'];
    // A small answer without a tag to weaken (a status, an error) leaves here, before Accept-Encoding is even read.
    if (typeof body === 'string' && body.length < COMPRESSION_THRESHOLD_CHARS && etag === undefined) return;
    // A HEAD answer without a body is one too large to build whole (responseBody.ts builds nothing for it): GET streams it.
    const streamed = body === null ? head : isStreamedBody(body);
    const strongTag = etag !== undefined && !etag.startsWith('W/');
    const coding = preferredCoding(acceptEncoding, strongTag && !streamed ? KEPT_ANSWER_CODINGS : PER_REQUEST_CODINGS);
    if (coding === 'identity') return;
    if (strongTag) headers['etag'] = `W/${etag}`;
    if (notModified) return;
    if (body === null) {
      if (head) headers['content-encoding'] = coding;
      return;
    }
    if (isStreamedBody(body)) {
      headers['content-encoding'] = coding;
      response.body = compressedStream(body, coding);
      return;
    }
    const length = typeof body === 'string' ? body.length : body.byteLength;
    if (length < COMPRESSION_THRESHOLD_CHARS) return;
    headers['content-encoding'] = coding;
    response.body = await this.compressedWhole(body, coding, strongTag ? etag : undefined);
  }

  /** `strongTag`: the answer's bytes are the same every time it has that tag, so its compressed form is kept. */
  private async compressedWhole(body: string | Uint8Array, coding: Compressing, strongTag: string | undefined): Promise<Uint8Array> {
    if (strongTag === undefined) return compressWhole(body, coding);
    const key = `${coding} ${strongTag}`;
    const kept = this.kept.get(key);
    if (kept) return kept;
    const compressed = await compressWhole(body, coding);
    if (this.kept.size >= KEPT_COMPRESSED_ANSWERS) this.kept.delete(this.kept.keys().next().value!);
    this.kept.set(key, compressed);
    return compressed;
  }
}

/** The coding `acceptEncoding` asks for, for an answer compressed for its request (the metrics listener's scrape). */
export function wholeAnswerCoding(acceptEncoding: HeaderValue): ContentCoding {
  return preferredCoding(acceptEncoding, PER_REQUEST_CODINGS);
}

/** A whole body, coded: on the event loop when small, in the thread pool when not (SYNC_COMPRESSION_MAX_CHARS). */
export function compressWhole(body: string | Uint8Array, coding: Compressing): Uint8Array | Promise<Uint8Array> {
  const length = typeof body === 'string' ? body.length : body.byteLength;
  if (coding === 'br') {
    const options = brotliOptions(length);
    return length <= SYNC_COMPRESSION_MAX_CHARS ? brotliCompressSync(body, options) : brotliInPool(body, options);
  }
  return length <= SYNC_COMPRESSION_MAX_CHARS ? gzipSync(body, GZIP_OPTIONS) : gzipInPool(body, GZIP_OPTIONS);
}

const brotliInPool = promisify(brotliCompress) as (body: string | Uint8Array, options: BrotliOptions) => Promise<Buffer>;
const gzipInPool = promisify(gzip) as (body: string | Uint8Array, options: ZlibOptions) => Promise<Buffer>;

/**
 * A whole body's length is its size hint, so brotli sizes its buffers to it; a stream of unknown length gets a
 * 256 KiB window instead of the default 4 MiB, which its compressor would fill with a large answer and hold while
 * its client reads (a larger window made JSON answers smaller by less than 0.5 %).
 */
function brotliOptions(sizeHint?: number): BrotliOptions {
  return {
    params: {
      [constants.BROTLI_PARAM_QUALITY]: BROTLI_QUALITY,
      [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
      ...(sizeHint === undefined ? { [constants.BROTLI_PARAM_LGWIN]: STREAM_BROTLI_WINDOW_BITS } : { [constants.BROTLI_PARAM_SIZE_HINT]: sizeHint }),
    },
  };
}

/**
 * A streamed answer, coded as its reader takes it: the next part of `source` is asked for only once the reader took
 * what the last one gave, so a client reading slowly holds one part and the compressor's state, never its answer.
 * The compressor works in the thread pool. However the reader leaves (to the end, failed, or gone), `source` is
 * ended (its clean-up and access-log line run) and the compressor's memory is given back.
 */
export async function* compressedStream(source: AsyncIterable<string | Uint8Array>, coding: Compressing): AsyncGenerator<Uint8Array, void, undefined> {
  const compressor = coding === 'br' ? createBrotliCompress(brotliOptions()) : createGzip(GZIP_OPTIONS);
  const output: Buffer[] = [];
  compressor.on('data', (chunk: Buffer) => output.push(chunk));
  const ended = new Promise<void>((resolve, reject) => {
    compressor.once('end', resolve);
    compressor.once('error', reject);
  });
  // Awaited only once the source is done; a failure before is seen by the write that meets it.
  ended.catch(() => undefined);
  const take = () => (output.length === 1 ? output.pop()! : Buffer.concat(output.splice(0)));
  try {
    for await (const part of source) {
      await new Promise<void>((resolve, reject) => compressor.write(part, (error) => (error ? reject(error) : resolve())));
      if (output.length > 0) yield take();
    }
    compressor.end();
    await ended;
    if (output.length > 0) yield take();
  } finally {
    compressor.destroy();
  }
}
