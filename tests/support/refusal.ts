import { FlowgateApiError } from '../../adapters/client/index.js';

/** The FlowgateApiError a client call is refused with; fails when the call succeeds or fails otherwise. */
export async function refusal(call: Promise<unknown>): Promise<FlowgateApiError> {
  try {
    await call;
  } catch (error) {
    if (error instanceof FlowgateApiError) return error;
    throw error;
  }
  throw new Error('the call was not refused');
}
