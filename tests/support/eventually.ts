/** How `eventually` asks. A plain number is `timeoutMs`. */
export interface EventuallyOptions {
  /** How long to keep asking before failing (default 20 s: generous, since CI's machine runs three suites at once). */
  timeoutMs?: number;
  /** The pause between two questions (default 200 ms; a probe that only reads memory can ask more often). */
  intervalMs?: number;
  /**
   * Whether a probe that throws is asked again (its last error is named if time runs out) rather than failing at once:
   * for a server that is still starting, or a key file that is not read yet.
   */
  retryErrors?: boolean;
}

/**
 * Asks `probe` until it answers something other than `undefined` or `false`, and returns that answer; after
 * `timeoutMs` it throws, naming `what` (a function is called then, so the message can show the last thing seen). The
 * one way tests wait for what a server, an engine or a child process shows a moment later: never a fixed sleep.
 */
export async function eventually<T>(
  what: string | (() => string),
  probe: () => T | undefined | false | Promise<T | undefined | false>,
  options: number | EventuallyOptions = {},
): Promise<T> {
  const { timeoutMs = 20_000, intervalMs = 200, retryErrors = false } = typeof options === 'number' ? { timeoutMs: options } : options;
  const startedAt = Date.now();
  let lastError: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined && value !== false) return value;
    } catch (error) {
      if (!retryErrors) throw error;
      lastError = error;
    }
    if (Date.now() - startedAt > timeoutMs) {
      const named = typeof what === 'function' ? what() : what;
      const cause = lastError === undefined ? '' : `; last error: ${lastError instanceof Error ? lastError.message : String(lastError)}`;
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${named}${cause}`, lastError === undefined ? undefined : { cause: lastError });
    }
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
