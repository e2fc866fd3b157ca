import type { Readable } from 'node:stream';

/**
 * An object's body, read whole under a deadline (a server that stalls mid-body must not hang the caller), or
 * `undefined` once it passes `maxBytes` (a server may omit or misstate ContentLength).
 */
export async function readBodyCapped(body: Readable | undefined, maxBytes: number, deadline: AbortSignal): Promise<Buffer | undefined> {
  if (!body) return Buffer.alloc(0);
  const abort = () => body.destroy(deadline.reason instanceof Error ? deadline.reason : new Error('read deadline passed'));
  if (deadline.aborted) abort();
  deadline.addEventListener('abort', abort, { once: true });
  try {
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of body) {
      const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as Uint8Array);
      size += buffer.length;
      if (size > maxBytes) {
        body.destroy();
        return undefined;
      }
      chunks.push(buffer);
    }
    return Buffer.concat(chunks);
  } finally {
    deadline.removeEventListener('abort', abort);
  }
}
