// Query parameters whose names suggest a secret (case-insensitive substring match).
const SECRET_PARAMETER_PARTS = ['key', 'token', 'secret', 'password', 'passwd', 'pwd', 'auth', 'signature', 'sig', 'credential', 'session', 'code', 'access'];

/**
 * A URL safe to put in an event: credentials in the authority become `***`, values of secret-looking query parameters
 * become `REDACTED`, the fragment is dropped. A URL that does not parse is never echoed.
 */
export function redactUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return '[unparseable url]';
  }
  if (parsed.username) parsed.username = '***';
  if (parsed.password) parsed.password = '***';
  parsed.hash = '';
  const redacted = new URLSearchParams();
  for (const [name, value] of parsed.searchParams) {
    const lower = name.toLowerCase();
    redacted.append(name, SECRET_PARAMETER_PARTS.some((part) => lower.includes(part)) ? 'REDACTED' : value);
  }
  parsed.search = redacted.toString();
  return parsed.toString();
}
