import { idPathSegment } from '../../core/domain/ids.js';
import type { Transport } from './transport.js';
import type { CallOptions, CreateScheduleRequest, ListSchedulesQuery, OverlapPolicy, Schedule, ScheduleBackfillRequest, ScheduleFires, ScheduleList, UpdateScheduleRequest } from './types.js';

/**
 * The schedule endpoints (docs/schedules.md), as `client.schedules`. Reads are retried after a dropped connection;
 * changes are not (a schedule change carries no Idempotency-Key), except delete, which ends the same either way.
 */
export class ScheduleCalls {
  constructor(private readonly transport: Transport) {}

  /** POST /schedules */
  create(request: CreateScheduleRequest, options: CallOptions = {}): Promise<Schedule> {
    return this.send('POST', '/schedules', request, options);
  }

  /** GET /schedules */
  async list(query: ListSchedulesQuery = {}, options: CallOptions = {}): Promise<ScheduleList> {
    return (await this.transport.json<ScheduleList>({ method: 'GET', path: '/schedules', query: { ...query }, retrySafe: true, ...options })).body;
  }

  /** GET /schedules/{id} */
  async get(scheduleId: string, options: CallOptions = {}): Promise<Schedule> {
    return (await this.transport.json<Schedule>({ method: 'GET', path: schedulePath(scheduleId), retrySafe: true, ...options })).body;
  }

  /** PATCH /schedules/{id} */
  update(scheduleId: string, request: UpdateScheduleRequest, options: CallOptions = {}): Promise<Schedule> {
    return this.send('PATCH', schedulePath(scheduleId), request, options);
  }

  /** DELETE /schedules/{id} */
  async delete(scheduleId: string, options: CallOptions = {}): Promise<void> {
    await this.transport.json<undefined>({ method: 'DELETE', path: schedulePath(scheduleId), retrySafe: true, ...options });
  }

  /** POST /schedules/{id}/pause */
  pause(scheduleId: string, options: CallOptions & { note?: string | undefined } = {}): Promise<Schedule> {
    const { note, ...call } = options;
    return this.send('POST', `${schedulePath(scheduleId)}/pause`, note === undefined ? {} : { note }, call);
  }

  /** POST /schedules/{id}/unpause */
  unpause(scheduleId: string, options: CallOptions & { note?: string | undefined } = {}): Promise<Schedule> {
    const { note, ...call } = options;
    return this.send('POST', `${schedulePath(scheduleId)}/unpause`, note === undefined ? {} : { note }, call);
  }

  /** POST /schedules/{id}/trigger: one fire now, under the schedule's overlap policy or `overlap`. */
  trigger(scheduleId: string, options: CallOptions & { overlap?: OverlapPolicy | undefined } = {}): Promise<ScheduleFires> {
    const { overlap, ...call } = options;
    return this.send('POST', `${schedulePath(scheduleId)}/trigger`, overlap === undefined ? {} : { overlap }, call);
  }

  /** POST /schedules/{id}/backfill: one fire per fire time from startAt to endAt (both included). */
  backfill(scheduleId: string, request: ScheduleBackfillRequest, options: CallOptions = {}): Promise<ScheduleFires> {
    return this.send('POST', `${schedulePath(scheduleId)}/backfill`, request, options);
  }

  private async send<T>(method: 'POST' | 'PATCH', path: string, body: unknown, options: CallOptions): Promise<T> {
    return (await this.transport.json<T>({ method, path, body, retrySafe: false, ...options })).body;
  }
}

function schedulePath(scheduleId: string): string {
  return `/schedules/${idPathSegment(scheduleId)}`;
}
