import type { HeaderValue } from './types.js';

/*
 * Which content coding answers a request, by its `Accept-Encoding` (RFC 9110, 12.5.3). The server compresses with
 * brotli or gzip; `identity` is no coding at all.
 */

export type ContentCoding = 'br' | 'gzip' | 'identity';

/** A coding that compresses, in the order the server prefers them when the client rates them alike. */
export type Compressing = Exclude<ContentCoding, 'identity'>;

/** A qvalue: 0 to 1 with at most three decimals. */
const QVALUE = /^(?:0(?:\.\d{0,3})?|1(?:\.0{0,3})?)$/;

/**
 * The coding to answer with, of `offered` (in the server's order of preference) and identity. Each coding gets the quality the client gave it by name, else the quality of `*`, else
 * none (0): `br;q=0` refuses brotli, `*;q=0` every coding not named. The offered coding with the highest quality wins
 * (the server's order on a tie) unless `identity` is rated higher. `identity` is acceptable unless refused by name or by
 * `*;q=0`, and when nothing else is acceptable it is the answer anyway: the server answers rather than refuse with 415.
 * No header at all: identity, as for a client that asked for nothing (curl, most scripts). An element that does not
 * parse (a bad qvalue) says nothing the server could honour and is left out.
 */
export function preferredCoding(header: HeaderValue, offered: readonly Compressing[]): ContentCoding {
  if (header === undefined) return 'identity';
  const named = new Map<string, number>();
  let anyQuality: number | undefined;
  for (const line of typeof header === 'string' ? [header] : header) {
    for (const element of line.split(',')) {
      const [rawName = '', ...parameters] = element.split(';');
      const name = canonicalName(rawName.trim().toLowerCase());
      if (name === '') continue;
      const quality = qualityOf(parameters);
      if (quality === undefined) continue;
      if (name === '*') anyQuality = quality;
      // Named twice: the higher rating stands (RFC 9110 says nothing; the client accepts it in at least one).
      else named.set(name, Math.max(quality, named.get(name) ?? 0));
    }
  }
  const qualityOfCoding = (coding: string) => named.get(coding) ?? anyQuality ?? 0;
  let best: ContentCoding = 'identity';
  let bestQuality = 0;
  for (const coding of offered) {
    const quality = qualityOfCoding(coding);
    if (quality > bestQuality) {
      best = coding;
      bestQuality = quality;
    }
  }
  // identity named with a higher quality than every coding: the client prefers the bytes as they are.
  const identity = named.get('identity');
  if (best !== 'identity' && identity !== undefined && identity > bestQuality) return 'identity';
  return best;
}

/** `x-gzip` is gzip (RFC 9110 8.4.1.3). */
function canonicalName(name: string): string {
  return name === 'x-gzip' ? 'gzip' : name;
}

/** The element's `q` (1 when absent); undefined when it is not a qvalue. */
function qualityOf(parameters: readonly string[]): number | undefined {
  for (const parameter of parameters) {
    const [name = '', raw = ''] = parameter.split('=', 2).map((part) => part.trim());
    if (name.toLowerCase() === 'q') return QVALUE.test(raw) ? Number(raw) : undefined;
  }
  return 1;
}
