import { HISTORY_PAGE_MAX_BYTES, PageFill, type HistoryPage } from '../../../core/domain/history.js';
import { checkHistoryPageSize } from '../../../core/domain/requestBounds.js';
import type { PinnedRunRef } from '../../../core/domain/run.js';
import type { HistoryPageQuery } from '../../../ports/engine.js';
import type { TemporalCalls } from './calls.js';
import type { HistoryEvent as RawEvent } from './proto.js';
import { HistoryMapper, type MapperState } from './historyMapper.js';
import { fetchHistoryPage } from './historyReader.js';
import type { PageTokens } from '../../pageTokens.js';
import { decodeTemporalToken, encodeTemporalToken } from './pageTokens.js';

/** Where the next page starts: a raw Temporal page (its token, '' for the first), how many of its events were read, and the mapper's state there. */
interface HistoryPosition {
  r: string;
  k: number;
  m: MapperState;
}

/** Raw events fetched per neutral event wanted: each step and timer comes with a workflow task (three events). */
const RAW_EVENTS_PER_EVENT = 3;
const MAX_RAW_PAGE_SIZE = 1000;

/**
 * One page of neutral events. Temporal's pages count raw events, most of which (workflow tasks) are left out, so a
 * page is filled from as many raw pages as it takes, and its token may point into the middle of a raw page. The
 * next token is issued only once the following event is known to exist, so no page is empty.
 */
export async function readHistoryPage(
  calls: TemporalCalls,
  tokens: PageTokens,
  run: PinnedRunRef,
  query: HistoryPageQuery,
  /** About how many bytes of events a page holds (HISTORY_PAGE_MAX_BYTES). */
  maxBytes: number = HISTORY_PAGE_MAX_BYTES,
): Promise<HistoryPage> {
  const { pageSize } = query;
  // The history use case checked it; asserted again because a wrong size would read a wrong raw page.
  checkHistoryPageSize(pageSize);
  // The raw page size is part of the position's meaning, so the token is bound to pageSize as well as to the run.
  const scope = JSON.stringify(['history', run.workflowId, run.runId, pageSize]);
  const start: HistoryPosition = query.pageToken === undefined ? { r: '', k: 0, m: { next: 1, steps: {} } } : tokens.read(scope, query.pageToken, isHistoryPosition);
  const rawPageSize = Math.min(MAX_RAW_PAGE_SIZE, pageSize * RAW_EVENTS_PER_EVENT + 1);
  const mapper = new HistoryMapper(start.m);
  const events: HistoryPage['events'] = [];
  // Up to pageSize events and maxBytes of them, each counted by its raw event's size.
  const fill = new PageFill(pageSize, maxBytes);
  let rawToken = start.r;
  let skip = start.k;
  for (;;) {
    const page = await fetchHistoryPage(
      calls,
      run,
      { maximumPageSize: rawPageSize, nextPageToken: decodeTemporalToken(rawToken) },
      { fromClient: rawToken !== '' },
    );
    for (let index = skip; index < page.events.length; index += 1) {
      const raw = page.events[index]!;
      const size = rawEventBytes(raw);
      const before = fill.fits(size) ? undefined : mapper.snapshot();
      const event = mapper.map(raw);
      if (!event) continue;
      if (before) return { events, nextPageToken: tokens.issue(scope, { r: rawToken, k: index, m: before } satisfies HistoryPosition) };
      fill.add(size);
      events.push(event);
    }
    if (!page.nextPageToken) return { events, nextPageToken: null };
    rawToken = encodeTemporalToken(page.nextPageToken);
    skip = 0;
  }
}

/**
 * About the bytes of the neutral event a raw event becomes, as JSON: its payloads' bytes (the bulk of any large event)
 * and its strings, without decoding anything. Raw events are small trees of fields around their payloads.
 */
export function rawEventBytes(raw: RawEvent): number {
  return 80 + fieldBytes(raw, 0);
}

function fieldBytes(value: unknown, depth: number): number {
  if (value === null || value === undefined) return 0;
  if (typeof value === 'string') return value.length + 4;
  if (typeof value !== 'object') return 8;
  if (value instanceof Uint8Array) return value.byteLength;
  // Deeper than any field of a history event: a failure's cause chain, cut short (it is small anyway).
  if (depth > 16) return 0;
  let bytes = 0;
  for (const key of Object.keys(value)) bytes += fieldBytes((value as Record<string, unknown>)[key], depth + 1);
  return bytes;
}

function isHistoryPosition(value: unknown): value is HistoryPosition {
  if (typeof value !== 'object' || value === null) return false;
  const { r, k, m } = value as Partial<HistoryPosition>;
  if (typeof r !== 'string' || !Number.isInteger(k) || (k as number) < 0) return false;
  if (typeof m !== 'object' || m === null || !Number.isInteger(m.next) || m.next < 1) return false;
  return typeof m.steps === 'object' && m.steps !== null && Object.values(m.steps).every(isOpenStep);
}

function isOpenStep(value: unknown): boolean {
  return Array.isArray(value) && value.length === 2 && typeof value[0] === 'string' && typeof value[1] === 'number';
}
