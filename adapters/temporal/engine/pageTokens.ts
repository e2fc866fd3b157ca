/** Temporal's next-page token (bytes) as a field of a page token (adapters/pageTokens.ts), and back. */
export function encodeTemporalToken(token: Uint8Array | null | undefined): string {
  return token && token.length > 0 ? Buffer.from(token).toString('base64url') : '';
}

export function decodeTemporalToken(token: string): Uint8Array | undefined {
  return token ? new Uint8Array(Buffer.from(token, 'base64url')) : undefined;
}
