/*
 * The page's own URLs, relative to the UI's root (`…/ui/`): stable links a user can bookmark and share.
 *   (empty) or runs       the runs list; filters in the query (workflowName, status, catalog, limit)
 *   runs/{id}/{rid}       one run
 *   runs/{id}             the latest run of an id (the page replaces the URL with the pinned one)
 *   start                 start a run (?workflow=&catalog=)
 *   schedules             the schedules list; filters in the query (workflowName, limit)
 *   schedules/{id}        one schedule
 * Pure: no DOM, so tests/unit checks it.
 */

export type Route =
  | { page: 'runs'; query: URLSearchParams }
  | { page: 'run'; workflowId: string; runId: string | undefined }
  | { page: 'start'; workflowName: string | undefined; catalog: string | undefined }
  | { page: 'schedules'; query: URLSearchParams }
  | { page: 'schedule'; scheduleId: string }
  | { page: 'not-found'; path: string };

/** `path` is the part of the URL's path after the UI's root, still percent-encoded. */
export function parseRoute(path: string, search: string): Route {
  const query = new URLSearchParams(search);
  const trimmed = path.endsWith('/') ? path.slice(0, -1) : path;
  const segments = trimmed === '' ? [] : trimmed.split('/').map(decodeSegment);
  const [first, second, third] = segments;
  if (segments.length === 0 || (segments.length === 1 && first === 'runs')) return { page: 'runs', query };
  if (first === 'runs' && segments.length <= 3 && second && (segments.length === 2 || third)) {
    return { page: 'run', workflowId: second, runId: third };
  }
  if (segments.length === 1 && first === 'start') {
    return { page: 'start', workflowName: query.get('workflow') || undefined, catalog: query.get('catalog') || undefined };
  }
  if (first === 'schedules' && segments.length === 1) return { page: 'schedules', query };
  if (first === 'schedules' && segments.length === 2 && second) return { page: 'schedule', scheduleId: second };
  return { page: 'not-found', path };
}

export function runHref(workflowId: string, runId?: string): string {
  const base = `runs/${encodeURIComponent(workflowId)}`;
  return runId === undefined ? base : `${base}/${encodeURIComponent(runId)}`;
}

export function startHref(workflowName?: string, catalog?: string): string {
  const query = new URLSearchParams();
  if (workflowName) query.set('workflow', workflowName);
  if (catalog) query.set('catalog', catalog);
  const search = query.toString();
  return search ? `start?${search}` : 'start';
}

export function runsHref(query: URLSearchParams): string {
  const search = query.toString();
  return search ? `runs?${search}` : 'runs';
}

export function schedulesHref(query: URLSearchParams = new URLSearchParams()): string {
  const search = query.toString();
  return search ? `schedules?${search}` : 'schedules';
}

export function scheduleHref(scheduleId: string): string {
  return `schedules/${encodeURIComponent(scheduleId)}`;
}

function decodeSegment(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}
