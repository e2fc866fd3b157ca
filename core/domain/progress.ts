/**
 * A `progress` event of the history stream: what a step reported while it ran (docs/progress.md). Not part of the
 * engine's history: it has no history event id of its own.
 */
export interface ProgressEvent {
  /** The id of the step's `step_scheduled` history event: which step call reported it. */
  stepEventId: number;
  stepName: string;
  attempt: number;
  /** 1, 2, 3… per step call, across its attempts. */
  seq: number;
  /** ISO 8601 UTC, from the clock of the process running the step. */
  time: string;
  fields: Record<string, unknown>;
}

/**
 * Where a history stream is, as its SSE event ids say: the last history event sent and, per running step, the
 * last progress seq sent. A history event's id is its event id (unchanged); a progress event's id is
 * `<lastEventId>/<stepEventId>.<seq>/…`, listing every running step that has sent progress, so a reconnect with it
 * neither repeats nor skips progress.
 */
export interface StreamPosition {
  lastEventId: number;
  /** stepEventId → last seq sent. */
  progress: ReadonlyMap<number, number>;
}

const INTEGER = /^\d{1,15}$/;
const STEP_CURSOR = /^(\d{1,15})\.(\d{1,15})$/;

/** The SSE id of a progress event sent at `position`. */
export function formatStreamPosition(position: StreamPosition): string {
  const steps = [...position.progress].sort(([a], [b]) => a - b).map(([step, seq]) => `/${step}.${seq}`);
  return `${position.lastEventId}${steps.join('')}`;
}

/** The position named by a `Last-Event-ID` value; `undefined` when it is not one of the stream's ids. */
export function parseStreamPosition(text: string): StreamPosition | undefined {
  const [head, ...steps] = text.split('/');
  // No cap on the number of steps: the server's header size limit bounds it, and every id the stream sends parses.
  if (head === undefined || !INTEGER.test(head)) return undefined;
  const progress = new Map<number, number>();
  for (const step of steps) {
    const match = STEP_CURSOR.exec(step);
    if (!match) return undefined;
    const stepEventId = Number(match[1]);
    const seq = Number(match[2]);
    // A step's progress is only ever sent after its step_scheduled event.
    if (stepEventId < 1 || seq < 1 || stepEventId > Number(head) || progress.has(stepEventId)) return undefined;
    progress.set(stepEventId, seq);
  }
  return { lastEventId: Number(head), progress };
}
