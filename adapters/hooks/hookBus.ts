import { randomUUID } from 'node:crypto';
import { serializeFailure } from '../../core/definition/failures.js';
import {
  HOOK_NAMES,
  type ActivityEvent,
  type EventEnvelope,
  type HookName,
  type HookPayloads,
  type HookRegistrar,
  type HooksDefinition,
} from '../../core/definition/hooks.js';
import type { Logger } from '../../ports/logger.js';

type AnyHandler = (event: any) => void | Promise<void>;

export interface HookBusOptions {
  logger: Logger;
  /** A handler still running after this long is abandoned and reported through onError (source `runtime`). */
  handlerTimeoutMs?: number;
  now?: () => number;
  newId?: () => string;
}

export const DEFAULT_HOOK_TIMEOUT_MS = 5_000;

/**
 * A worker's registered hooks. Every delivery is fire-and-forget and isolated: a handler that throws, rejects or
 * hangs never reaches the workflow or the activity that caused the event; it is reported through onError with source
 * `runtime` (and logged, since an onError handler may be the one failing).
 */
export class HookBus {
  private readonly handlers = new Map<string, AnyHandler[]>();
  private readonly timeoutMs: number;
  private readonly now: () => number;
  private readonly newId: () => string;
  private readonly inFlight = new Set<Promise<void>>();

  constructor(
    definitions: readonly HooksDefinition[],
    private readonly options: HookBusOptions,
  ) {
    this.timeoutMs = options.handlerTimeoutMs ?? DEFAULT_HOOK_TIMEOUT_MS;
    this.now = options.now ?? Date.now;
    this.newId = options.newId ?? randomUUID;
    const registrar = this.registrar();
    for (const definition of definitions) definition.register(registrar);
  }

  get empty(): boolean {
    return this.handlers.size === 0;
  }

  /** Whether anything listens for a hook or a named event (callers skip building payloads nobody reads). */
  listens(name: HookName | string): boolean {
    return (this.handlers.get(name)?.length ?? 0) > 0;
  }

  /** A fresh envelope; `preset` fields win (docs/hooks.md: a caller may preset eventId and eventDate). */
  envelope(preset: Partial<EventEnvelope> = {}): EventEnvelope {
    return {
      eventId: typeof preset.eventId === 'string' && preset.eventId.length > 0 ? preset.eventId : this.newId(),
      eventDate: typeof preset.eventDate === 'number' && Number.isFinite(preset.eventDate) ? preset.eventDate : this.now(),
    };
  }

  fire<H extends HookName>(hook: H, payload: HookPayloads[H]): void {
    this.deliver(hook, payload);
  }

  /** A named event in an activity's envelope, with the emitter's fields (presets of eventId/eventDate honoured). */
  fireNamed(name: string, envelope: Omit<ActivityEvent, 'eventId' | 'eventDate'>, fields: Record<string, unknown>): void {
    if (!this.listens(name)) return;
    const { eventId, eventDate, ...rest } = fields as Partial<EventEnvelope> & Record<string, unknown>;
    this.deliver(name, { ...this.envelope({ eventId, eventDate }), ...envelope, ...rest });
  }

  /** Waits for handlers still running (bounded by their timeout): a worker's shutdown and the tests use it. */
  async settled(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
  }

  private deliver(name: string, payload: object): void {
    for (const handler of this.handlers.get(name) ?? []) {
      const delivery = this.runIsolated(name, handler, payload);
      this.inFlight.add(delivery);
      void delivery.finally(() => this.inFlight.delete(delivery));
    }
  }

  private async runIsolated(name: string, handler: AnyHandler, payload: object): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    try {
      const timedOut = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new HookTimeoutError(`hook ${name} did not finish within ${this.timeoutMs} ms`)), this.timeoutMs);
        timer.unref?.();
      });
      await Promise.race([Promise.resolve().then(() => handler(structuredClone(payload))), timedOut]);
    } catch (error) {
      this.reportHandlerFailure(name, error);
    } finally {
      clearTimeout(timer);
    }
  }

  private reportHandlerFailure(name: string, error: unknown): void {
    const serialized = serializeFailure(error);
    this.options.logger.warn('a hook handler failed; the run is not affected', { hook: name, error: serialized.message });
    // A failing onError handler is only logged: reporting it through onError again could loop.
    if (name === 'onError') return;
    this.deliver('onError', { ...this.envelope(), source: 'runtime', error: { ...serialized, hook: name } });
  }

  private registrar(): HookRegistrar {
    const add = (name: string, handler: unknown): void => {
      if (typeof handler !== 'function') throw new TypeError(`hooks: the handler of ${name} must be a function`);
      const list = this.handlers.get(name) ?? [];
      list.push(handler as AnyHandler);
      this.handlers.set(name, list);
    };
    const registrar = Object.fromEntries(HOOK_NAMES.map((hook) => [hook, (handler: unknown) => add(hook, handler)])) as unknown as HookRegistrar;
    registrar.on = (name: string, handler: unknown) => {
      if (typeof name !== 'string' || name.length === 0) throw new TypeError('hooks.on: the event name must be a non-empty string');
      add(name, handler);
    };
    return registrar;
  }
}

/** A hook handler that outlived its time limit. */
export class HookTimeoutError extends Error {
  override name = 'HookTimeoutError';
}
