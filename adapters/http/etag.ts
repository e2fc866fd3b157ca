import { createHash } from 'node:crypto';

/** A strong entity tag of a body: its SHA-256, so equal bytes give equal tags whichever process serves them. */
export function etagOf(body: string): string {
  return `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;
}

/** RFC 9110 13.1.2 If-None-Match: weak comparison over a list, or `*`. */
export function matchesEtag(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  if (header.trim() === '*') return true;
  return header.split(',').some((candidate) => candidate.trim().replace(/^W\//, '') === etag);
}
