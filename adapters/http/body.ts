import { isUtf8 } from 'node:buffer';
import { PayloadTooLargeError } from '../../core/domain/errors.js';
import { BodyAlreadyReadError, UnsupportedMediaTypeError } from './transportErrors.js';
import { findPrototypeKey, jsonNestingDepth, mayHavePrototypeKey } from '../../core/validation/jsonSafety.js';
import { firstHeader, type HttpRequest } from './types.js';
import { validationProblem } from './validation.js';

export interface JsonBodyOptions {
  maxBytes: number;
  /** Deepest nesting of arrays and objects accepted (400 beyond). @default 100 */
  maxDepth: number;
  /** Whether an empty body is accepted (terminate, stop). */
  optional: boolean;
}

/** What {@link readJsonBody} returns for an accepted empty body. */
export const EMPTY_BODY: unique symbol = Symbol('empty body');

/**
 * Reads and parses a JSON request body. Refuses, in this order and without reading more than needed: a compressed
 * body (415), a declared Content-Length over the cap (413), a non-JSON Content-Type (415), a body growing past the
 * cap (413), a non-empty body without a Content-Type (415), a missing required body (400), bytes that are not
 * UTF-8 or not JSON (400), nesting deeper than `maxDepth` (400), a key that could reach a prototype (400).
 */
export async function readJsonBody(
  request: Pick<HttpRequest, 'headers' | 'body'>,
  options: JsonBodyOptions,
): Promise<unknown | typeof EMPTY_BODY> {
  const encoding = firstHeader(request.headers, 'content-encoding')?.trim().toLowerCase();
  if (encoding && encoding !== 'identity') {
    throw new UnsupportedMediaTypeError(`Content-Encoding ${encoding} is not supported; send uncompressed JSON.`);
  }
  const declaredLength = firstHeader(request.headers, 'content-length');
  if (declaredLength !== undefined && Number(declaredLength) > options.maxBytes) throw tooLarge(options.maxBytes);

  const contentType = firstHeader(request.headers, 'content-type');
  if (contentType !== undefined && !isJsonMediaType(contentType)) throw unsupportedMediaType();

  const text = await readText(request.body, options.maxBytes, contentType !== undefined);
  if (text.trim().length === 0) {
    if (options.optional) return EMPTY_BODY;
    throw validationProblem('A JSON request body is required.', 'missing_body', []);
  }
  const { maxDepth } = options;
  if (jsonNestingDepth(text, maxDepth) > maxDepth) {
    throw validationProblem(`Request body nests arrays and objects deeper than ${maxDepth} levels.`, 'too_deep', []);
  }
  let value: unknown;
  try {
    value = JSON.parse(text) as unknown;
  } catch (error) {
    const detail = error instanceof SyntaxError ? `: ${error.message}` : '';
    throw validationProblem(`Request body is not valid JSON${detail}`, 'invalid_json', []);
  }
  const prototypeKey = mayHavePrototypeKey(text) ? findPrototypeKey(value) : undefined;
  if (prototypeKey) {
    const what = prototypeKey.key === '__proto__' ? 'a "__proto__" key' : 'a "constructor" key holding a "prototype"';
    throw validationProblem(`Request body has ${what}, which is refused: it could reach object prototypes.`, 'prototype_key', prototypeKey.path);
  }
  return value;
}

/** `application/json`, optionally with parameters; a charset, when given, must be UTF-8 (RFC 8259). */
export function isJsonMediaType(contentType: string): boolean {
  const [mediaType, ...parameters] = contentType.split(';');
  if (mediaType?.trim().toLowerCase() !== 'application/json') return false;
  for (const parameter of parameters) {
    const [name, rawValue] = parameter.split('=', 2);
    if (name?.trim().toLowerCase() !== 'charset') continue;
    const value = rawValue?.trim().replace(/^"(.*)"$/, '$1').toLowerCase();
    if (value !== 'utf-8' && value !== 'utf8') return false;
  }
  return true;
}

async function readText(body: AsyncIterable<Uint8Array> | null, maxBytes: number, typed: boolean): Promise<string> {
  if (body === null) return '';
  // Iterated by hand, not with for-await: leaving a for-await loop calls return(), which on node:http destroys the
  // socket before the 413 can be written. The transport closes the connection after answering instead.
  const iterator = body[Symbol.asyncIterator]();
  const chunks: Uint8Array[] = [];
  let received = 0;
  for (let next = await iterator.next(); !next.done; next = await iterator.next()) {
    const chunk = next.value;
    if (chunk.byteLength === 0) continue;
    if (!typed) throw unsupportedMediaType();
    received += chunk.byteLength;
    if (received > maxBytes) throw tooLarge(maxBytes);
    chunks.push(chunk);
  }
  // Checked and decoded once, whole: a fatal TextDecoder per request, fed chunk by chunk, cost a start several
  // microseconds more (docs/performance.md, figure 9); most bodies arrive in one chunk.
  const bytes = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, received);
  if (!isUtf8(bytes)) throw validationProblem('Request body is not valid UTF-8.', 'invalid_encoding', []);
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
  // A byte order mark is not JSON; RFC 8259 lets a parser ignore it, as the decoder this replaced did.
  return text.charCodeAt(0) === BYTE_ORDER_MARK ? text.slice(1) : text;
}

const BYTE_ORDER_MARK = 0xfeff;

function tooLarge(maxBytes: number): InstanceType<typeof PayloadTooLargeError> {
  return new PayloadTooLargeError(`Request body exceeds ${maxBytes} bytes.`);
}

function unsupportedMediaType(): InstanceType<typeof UnsupportedMediaTypeError> {
  return new UnsupportedMediaTypeError('Request body must be application/json (UTF-8).');
}

/**
 * The body of a request whose bytes an embedding server read before flowgate's handler got them: refused with
 * BodyAlreadyReadError by the routes that read a body (docs/embedding.md), not taken for an empty one.
 */
export const BODY_READ_ELSEWHERE: AsyncIterable<Uint8Array> = {
  [Symbol.asyncIterator]() {
    return {
      next: () =>
        Promise.reject(
          new BodyAlreadyReadError(
            "The request body was read before it reached flowgate's handler (a body parser or another middleware mounted ahead of it); mount flowgate's handler before any body parser (docs/embedding.md).",
          ),
        ),
    };
  },
};
