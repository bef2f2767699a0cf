import { IllegalStateError } from '@temporalio/common';
import type { Worker } from '@temporalio/worker';

/**
 * Runs the worker until a shutdown has drained it. Resolves `true` once the worker has let go of
 * its connection, and `false` when the SDK's core still held a reference to the worker at its last
 * step ("Worker still in use: Expected 1 reference, but got 2", a race inside the SDK seen under
 * load). The work is done either way, but in the second case the connection cannot be closed.
 */
export async function runWorker(worker: Pick<Worker, 'run'>): Promise<boolean> {
  try {
    await worker.run();
    return true;
  } catch (error) {
    if (error instanceof IllegalStateError && error.message.startsWith('Worker still in use')) return false;
    throw error;
  }
}
