/** Closes one part; given what is left of the grace period, in ms (0 when closing after a failed start). */
export type Closer = (remainingMs: number) => unknown;

/**
 * What one flowgate started and must release, in the order it started: each part is pushed as soon as it is running,
 * so a start that fails half-way releases exactly what was started, and a close releases everything, in reverse.
 * Each closer runs once; one that fails does not keep the others from running, and the failures are thrown together.
 */
export class Closers {
  private readonly stack: { name: string; close: Closer }[] = [];
  private closing: Promise<void> | undefined;

  /** Adds a part to close before everything pushed earlier. */
  push(name: string, close: Closer): void {
    if (this.closing) throw new Error(`cannot start ${name}: closing has begun`);
    this.stack.push({ name, close });
  }

  /** Closes every part, the last pushed first, within `graceMs` shared among them. Safe to call twice. */
  close(graceMs = 0): Promise<void> {
    return (this.closing ??= this.closeAll(graceMs));
  }

  /** After a failed start: closes what had started, then throws the start's error (with the close's, if any). */
  async rollBack(error: unknown): Promise<never> {
    try {
      await this.close(0);
    } catch (closeError) {
      throw new AggregateError([error, ...(closeError instanceof AggregateError ? closeError.errors : [closeError])], errorMessage(error));
    }
    throw error;
  }

  private async closeAll(graceMs: number): Promise<void> {
    const deadline = Date.now() + graceMs;
    const failures: { name: string; error: unknown }[] = [];
    for (let part = this.stack.pop(); part; part = this.stack.pop()) {
      try {
        await part.close(Math.max(0, deadline - Date.now()));
      } catch (error) {
        failures.push({ name: part.name, error });
      }
    }
    if (failures.length === 1) throw failures[0]!.error;
    if (failures.length > 1) {
      throw new AggregateError(
        failures.map(({ error }) => error),
        `${failures.length} parts failed to close: ${failures.map(({ name, error }) => `${name}: ${errorMessage(error)}`).join('; ')}`,
      );
    }
  }
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
