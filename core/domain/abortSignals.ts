/** A signal that aborts when any of its sources does, and the means to let go of them. */
export interface LinkedSignal {
  readonly signal: AbortSignal;
  /** The sources no longer reach `signal`, and no longer hold it. */
  unlink(): void;
}

/**
 * Like `AbortSignal.any`, for a signal made per request from one that lives as long as the process (the server's
 * shutdown, an application's own). On Node 22 a signal made by `AbortSignal.any` stays in its sources' list of
 * dependants for the source's life (about 500 bytes each, never collected), so a server or client linking a request
 * to a long-lived signal that way grows with every request. Here a source holds one listener, removed by `unlink`.
 */
export function linkSignals(sources: readonly AbortSignal[]): LinkedSignal {
  const controller = new AbortController();
  const aborted = sources.find((source) => source.aborted);
  if (aborted) {
    controller.abort(aborted.reason);
    return { signal: controller.signal, unlink: () => undefined };
  }
  const listeners = sources.map((source) => {
    const forward = (): void => controller.abort(source.reason);
    source.addEventListener('abort', forward, { once: true });
    return () => source.removeEventListener('abort', forward);
  });
  const unlink = (): void => {
    for (const remove of listeners.splice(0)) remove();
  };
  // Once aborted, nothing more can pass: the other sources are let go at once.
  controller.signal.addEventListener('abort', unlink, { once: true });
  return { signal: controller.signal, unlink };
}
