import { createHash } from 'node:crypto';
import type { Digest } from '../../ports/digest.js';

/** SHA-256 of the JSON array of parts, its first 128 bits shaped as a version 8 UUID. */
export const sha256Digest: Digest = Object.freeze({
  uuidOf(parts: readonly string[]): string {
    const bytes = createHash('sha256').update(JSON.stringify(parts)).digest().subarray(0, 16);
    bytes[6] = (bytes[6]! & 0x0f) | 0x80;
    bytes[8] = (bytes[8]! & 0x3f) | 0x80;
    const hex = bytes.toString('hex');
    return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
  },
});
