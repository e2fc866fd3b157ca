// Waits until a Temporal frontend really serves requests. A fixed sleep is either too long or, on a loaded 2-core
// machine, too short; the listening socket alone is not enough either (it opens before the namespace registry loads).
import { Connection } from '@temporalio/client';

/** @param {number} ms */
const delay = (ms) => new Promise((resolvePromise) => setTimeout(resolvePromise, ms));

/**
 * One attempt: connect, ask for system info, and check the namespace is there.
 * @param {string} address
 * @param {string} namespace
 */
async function answers(address, namespace) {
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
 * Polls every `intervalMs` until the server answers, `timeoutMs` passes, or `abandon` settles (the process died:
 * its rejection wins so the caller sees the real cause, not a time-out).
 * @param {object} options
 * @param {string} options.address
 * @param {string} options.namespace
 * @param {number} [options.timeoutMs]
 * @param {number} [options.intervalMs]
 * @param {Promise<never>} [options.abandon]
 * @returns {Promise<void>}
 */
export async function waitForTemporal({ address, namespace, timeoutMs = 90_000, intervalMs = 250, abandon }) {
  let gaveUp = false;
  const poll = async () => {
    const deadline = Date.now() + timeoutMs;
    /** @type {unknown} */
    let lastError;
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
