/**
 * Substrings of query parameter names (compared case-insensitively, after percent-decoding) whose values are
 * replaced. Substring matching errs towards redacting too much: `author` or `zipcode` are redacted as well.
 */
// Names like api_key, x-amz-signature or x-amz-security-token are covered by the shorter parts they contain.
export const SECRET_PARAMETER_PARTS: readonly string[] = ['key', 'token', 'secret', 'password', 'passwd', 'pwd', 'auth', 'sig', 'credential', 'session', 'code', 'access'];

export const REDACTED = 'REDACTED';
export const UNPARSEABLE_URL = '[unparseable url]';

/**
 * A URL safe to put in an event or a log:
 * - userinfo is masked, not dropped: a username becomes `***` and a password `***`
 *   (`https://user:pass@host/` → `https://***:***@host/`, `https://token@host/` → `https://***@host/`), so a reader
 *   still sees that credentials were sent;
 * - the value of every query parameter whose name looks secret becomes `REDACTED` (`?token` with no `=` has no value
 *   and stays as is); every other parameter keeps its place and its exact text (no re-encoding);
 * - the fragment is dropped;
 * - the rest is the WHATWG serialisation of the URL (lower-case host, default port removed, path percent-encoded).
 * A string that does not parse as an absolute URL gives `[unparseable url]`, never the text itself. Secrets in the
 * path (`/bot<token>/…`) are not detected.
 */
export function redactUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return UNPARSEABLE_URL;
  }
  if (parsed.username) parsed.username = '***';
  if (parsed.password) parsed.password = '***';
  parsed.hash = '';
  if (parsed.search.length > 1) {
    const pairs = parsed.search.slice(1).split('&').map((pair) => {
      const equals = pair.indexOf('=');
      if (equals < 0) return pair;
      return looksSecret(pair.slice(0, equals)) ? `${pair.slice(0, equals)}=${REDACTED}` : pair;
    });
    parsed.search = `?${pairs.join('&')}`;
  }
  return parsed.href;
}

function looksSecret(rawName: string): boolean {
  const name = decodeName(rawName).toLowerCase();
  return SECRET_PARAMETER_PARTS.some((part) => name.includes(part));
}

/** Form decoding (`+` is a space); a malformed escape is matched on the raw text. */
function decodeName(rawName: string): string {
  const spaced = rawName.replace(/\+/g, ' ');
  try {
    return decodeURIComponent(spaced);
  } catch {
    return spaced;
  }
}
