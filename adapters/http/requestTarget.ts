// The request target of an HTTP request line, split into the path routes match and the query schemas read.

/** Path and query of an origin-form or absolute request target. */
export function splitTarget(url: string): { path: string; search: string } {
  if (!url.startsWith('/')) {
    try {
      const parsed = new URL(url);
      return { path: parsed.pathname, search: parsed.search.slice(1) };
    } catch {
      return { path: url, search: '' };
    }
  }
  const queryStart = url.indexOf('?');
  return queryStart === -1 ? { path: url, search: '' } : { path: url.slice(0, queryStart), search: url.slice(queryStart + 1) };
}

/** A repeated parameter becomes an array, which no query schema accepts: ambiguity is a 400, not a guess. */
export function queryObject(search: string): Record<string, string | string[]> {
  // No prototype: `?__proto__=a&__proto__=b` must stay a parameter, not become the object's prototype.
  const query = Object.create(null) as Record<string, string | string[]>;
  if (search === '') return query;
  for (const [name, value] of new URLSearchParams(search)) {
    const existing = query[name];
    query[name] = existing === undefined ? value : Array.isArray(existing) ? [...existing, value] : [existing, value];
  }
  return query;
}
