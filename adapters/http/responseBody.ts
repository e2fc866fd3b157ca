import { JSON_CHUNK_CHARS, jsonChunks, jsonLengthExceeds } from './jsonChunks.js';
import type { HttpResponse } from './types.js';

/** The body of a JSON answer: whole when small; built as its client reads it when large; none for HEAD if large. */
export function jsonBody(value: unknown, head: boolean): string | AsyncIterable<string> | null {
  // A large answer (a trace, a history page, a result) is never built whole: a client reading slowly would keep it.
  if (!jsonLengthExceeds(value, JSON_CHUNK_CHARS)) return JSON.stringify(value);
  return head ? null : streamedJson(value);
}

async function* streamedJson(value: unknown): AsyncGenerator<string, void, undefined> {
  for (const chunk of jsonChunks(value, JSON_CHUNK_CHARS)) {
    yield chunk;
    // Other requests get their turn between chunks: while a client's kernel buffers take chunk after chunk, building
    // its answer would otherwise hold the event loop (a /health probe waited 1.5 s behind 60 such answers).
    await nextTurn();
  }
}

/** A macrotask later: what is waiting on the event loop (other requests, I/O) runs first. */
export function nextTurn(): Promise<void> {
  return new Promise((resolve) => (globalThis.setImmediate ?? setTimeout)(resolve));
}

/**
 * HEAD: the headers GET would send, no body. A whole answer's length is announced; a stream (server-sent events)
 * is entered once and left, so that what it holds (an event-stream slot, an engine follower) is given back.
 */
export async function withoutBody(response: HttpResponse): Promise<void> {
  const { body } = response;
  if (typeof body === 'string') response.headers['content-length'] = String(new TextEncoder().encode(body).byteLength);
  else if (body instanceof Uint8Array) response.headers['content-length'] = String(body.byteLength);
  else if (body !== null) for await (const _chunk of body) break;
  response.body = null;
}

/** `source`, then `done()` however it ends (to the end, failed, or left by its reader). */
export async function* afterLast<T>(source: AsyncIterable<T>, done: () => void): AsyncGenerator<T, void, undefined> {
  try {
    yield* source;
  } finally {
    done();
  }
}
