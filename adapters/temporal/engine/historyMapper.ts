import type { HistoryEvent as NeutralEvent } from '../../../core/domain/history.js';
import type { HistoryEvent } from './proto.js';
import { mapStepEvent, type OpenStep } from './stepEvents.js';
import { toIso } from './values.js';
import { mapWorkflowEvent } from './workflowEvents.js';

/** What reading a history must carry from one page to the next. Kept small: it travels inside page tokens. */
export interface MapperState {
  /** Id of the next neutral event. */
  next: number;
  /** Steps scheduled and not yet ended: scheduled event id → [activity type, attempt last started]. */
  steps: Record<string, [string, number]>;
}

export const INITIAL_MAPPER_STATE: MapperState = Object.freeze({ next: 1, steps: Object.freeze({}) }) as MapperState;

/**
 * Turns Temporal's events, read in order from the first, into engine-neutral ones (docs/api.md, History).
 * Workflow-task, marker and search-attribute events, memo upserts other than a wait's, and unknown types are left out.
 *
 * Neutral events are numbered 1, 2, 3… in order, like the embedded engine's: clients (and the contract suite) see
 * consecutive ids, and `Last-Event-ID` resumes by that number. History is append-only, so the numbering of a run
 * never changes between reads. Temporal's own ids would leave gaps where workflow tasks were.
 */
export class HistoryMapper {
  private next: number;
  private readonly steps: Map<number, OpenStep>;

  constructor(state: MapperState = INITIAL_MAPPER_STATE) {
    this.next = state.next;
    this.steps = new Map(Object.entries(state.steps).map(([id, [activityType, attempt]]) => [Number(id), { activityType, attempt }]));
  }

  map(raw: HistoryEvent): NeutralEvent | undefined {
    const mapped = mapStepEvent(raw, this.steps) ?? mapWorkflowEvent(raw);
    if (!mapped) return undefined;
    const event: NeutralEvent = {
      eventId: this.next,
      type: mapped.type,
      time: toIso(raw.eventTime),
      ...(mapped.stepName === undefined ? {} : { stepName: mapped.stepName }),
      attributes: mapped.attributes,
    };
    this.next += 1;
    return event;
  }

  snapshot(): MapperState {
    const steps: MapperState['steps'] = {};
    for (const [id, step] of this.steps) steps[String(id)] = [step.activityType, step.attempt];
    return { next: this.next, steps };
  }
}

