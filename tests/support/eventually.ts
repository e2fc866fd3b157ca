/**
 * Asks `probe` every 200 ms until it answers something other than undefined, and returns that; throws naming `what`
 * after `timeoutMs`. For what an engine shows a moment later (Temporal's visibility store, a schedule's next fire).
 */
export async function eventually<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}
