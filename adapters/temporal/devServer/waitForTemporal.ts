import { Connection } from '@temporalio/client';

const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** One attempt: connect, ask for system info, and check the namespace is there. */
async function answers(address: string, namespace: string): Promise<void> {
  const connection = await Connection.connect({ address, connectTimeout: 2_000 });
  try {
    const deadline = () => new Date(Date.now() + 2_000);
    await connection.withDeadline(deadline(), () => connection.workflowService.getSystemInfo({}));
    await connection.withDeadline(deadline(), () => connection.workflowService.describeNamespace({ namespace }));
  } finally {
    await connection.close();
  }
}

/**
 * Waits until a Temporal frontend really serves requests: polls every `intervalMs` until it answers, `timeoutMs`
 * passes, or `abandon` settles (the process died: its rejection wins, so the caller sees the real cause, not a
 * time-out). A fixed sleep is either too long or, on a loaded 2-core machine, too short; the listening socket alone is
 * not enough either (it opens before the namespace registry loads).
 */
export async function waitForTemporal(options: { address: string; namespace: string; timeoutMs?: number; intervalMs?: number; abandon?: Promise<never> }): Promise<void> {
  const { address, namespace, timeoutMs = 90_000, intervalMs = 250, abandon } = options;
  let gaveUp = false;
  const poll = async (): Promise<void> => {
    const deadline = Date.now() + timeoutMs;
    let lastError: unknown;
    while (!gaveUp && Date.now() < deadline) {
      try {
        await answers(address, namespace);
        return;
      } catch (error) {
        lastError = error;
      }
      await delay(intervalMs);
    }
    const reason = lastError instanceof Error ? lastError.message : String(lastError);
    throw new Error(`Temporal at ${address} did not answer within ${timeoutMs / 1000} s (last error: ${reason})`);
  };
  try {
    await (abandon ? Promise.race([poll(), abandon]) : poll());
  } finally {
    gaveUp = true;
  }
}
