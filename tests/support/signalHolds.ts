import { getEventListeners } from 'node:events';

/**
 * What a long-lived AbortSignal holds for the signals made from it: its abort listeners, and the signals
 * `AbortSignal.any` made from it, which Node 22 keeps in the source's own set for the source's life (Node 24 prunes
 * it). The set has no public accessor; it is found by its symbol's name, and counts 0 where it is absent.
 */
export function signalHolds(signal: AbortSignal): { listeners: number; dependants: number } {
  const dependantsKey = Object.getOwnPropertySymbols(signal).find((key) => key.description === 'kDependantSignals');
  const dependants = dependantsKey ? (signal as unknown as Record<symbol, Set<unknown> | undefined>)[dependantsKey] : undefined;
  return { listeners: getEventListeners(signal, 'abort').length, dependants: dependants?.size ?? 0 };
}
