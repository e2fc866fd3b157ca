import type { RequestHeaders } from './types.js';

/*
 * Content negotiation by `Accept` (RFC 9110, 12.5.1): each media type the server can answer gets the quality of the
 * most specific range that matches it (`type/subtype` over `type/*` over `*\/*`), and the best one wins.
 */

/** How specific the range that matched a media type was; NO_MATCH: none did, and the quality is 0. */
const NO_MATCH = -1;
const ANY = 0;
const SAME_TYPE = 1;
const EXACT = 2;

interface MediaRange {
  type: string;
  subtype: string;
  quality: number;
}

interface Match {
  quality: number;
  specificity: number;
}

/** A qvalue: 0 to 1 with at most three decimals. */
const QVALUE = /^(?:0(?:\.\d{0,3})?|1(?:\.0{0,3})?)$/;
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/**
 * The ranges of an `Accept` header (every line of it), lower-cased. A range that is not `type/subtype`, or whose
 * quality is not a qvalue, says nothing the server could honour and is left out.
 */
export function parseAccept(value: string | readonly string[]): MediaRange[] {
  const ranges: MediaRange[] = [];
  for (const line of typeof value === 'string' ? [value] : value) {
    for (const element of splitOutsideQuotes(line, ',')) {
      const [mediaType = '', ...parameters] = splitOutsideQuotes(element, ';');
      const [type = '', subtype = '', ...extra] = mediaType.trim().toLowerCase().split('/');
      if (extra.length > 0 || !TOKEN.test(type) || !TOKEN.test(subtype) || (type === '*' && subtype !== '*')) continue;
      let quality = 1;
      for (const parameter of parameters) {
        const [name = '', raw = ''] = parameter.split('=', 2).map((part) => part.trim());
        if (name.toLowerCase() !== 'q') continue;
        quality = QVALUE.test(raw) ? Number(raw) : Number.NaN;
        // Parameters after q are accept-extensions, not the media type's.
        break;
      }
      if (!Number.isNaN(quality)) ranges.push({ type, subtype, quality });
    }
  }
  return ranges;
}

/** The quality `ranges` give `mediaType` (`type/subtype`, lower case), and how specific the range that gave it is. */
function matchOf(ranges: readonly MediaRange[], mediaType: string): Match {
  const [type, subtype] = mediaType.split('/');
  let best: Match = { quality: 0, specificity: NO_MATCH };
  for (const range of ranges) {
    const specificity =
      range.type === type && range.subtype === subtype ? EXACT
      : range.type === type && range.subtype === '*' ? SAME_TYPE
      : range.type === '*' ? ANY
      : NO_MATCH;
    if (specificity > best.specificity) best = { quality: range.quality, specificity };
  }
  return best;
}

/**
 * Which of `offered` (in the server's order of preference, the first its default) answers a request: the one the
 * client gives the highest quality. On equal quality the default wins, unless the client named another one itself
 * (`text/event-stream, application/json`): a wildcard (`*\/*`) never takes a client away from the default. With no
 * `Accept`, or one that accepts none of them, the default: the API answers rather than refuse with 406.
 */
export function negotiate<T extends string>(headers: RequestHeaders, offered: readonly [T, ...T[]]): T {
  const accept = headers['accept'];
  const [fallback] = offered;
  if (accept === undefined) return fallback;
  const ranges = parseAccept(accept);
  let chosen = fallback;
  let best = matchOf(ranges, fallback);
  for (const candidate of offered.slice(1)) {
    const match = matchOf(ranges, candidate);
    const namedOverDefault = match.quality === best.quality && match.quality > 0 && match.specificity === EXACT && chosen === fallback;
    if (match.quality > best.quality || namedOverDefault) {
      chosen = candidate;
      best = match;
    }
  }
  return chosen;
}

/** `text` split at `separator`, except inside a quoted string (a parameter value may hold one). */
function splitOutsideQuotes(text: string, separator: string): string[] {
  const parts: string[] = [];
  let start = 0;
  let quoted = false;
  for (let index = 0; index < text.length; index++) {
    const char = text[index];
    if (quoted && char === '\\') index++;
    else if (char === '"') quoted = !quoted;
    else if (!quoted && char === separator) {
      parts.push(text.slice(start, index));
      start = index + 1;
    }
  }
  parts.push(text.slice(start));
  return parts;
}
