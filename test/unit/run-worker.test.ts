import { IllegalStateError } from '@temporalio/common';
import { runWorker } from '../../workers/run-worker';

/** Stands in for the SDK's worker: only how its run() ends matters here. */
const endingWith = (outcome: () => Promise<void>) => ({ run: outcome });

describe('runWorker', () => {
  it('says the worker let go of its connection when run() ends cleanly', async () => {
    await expect(runWorker(endingWith(async () => undefined))).resolves.toBe(true);
  });

  it('says the connection is still held when the SDK finalizes a drained worker it still references', async () => {
    const race = new IllegalStateError('Worker still in use: Expected 1 reference, but got 2');
    await expect(runWorker(endingWith(() => Promise.reject(race)))).resolves.toBe(false);
  });

  it('passes on every other failure, an illegal state of another kind included', async () => {
    const other = new IllegalStateError('Worker cannot be started twice');
    await expect(runWorker(endingWith(() => Promise.reject(other)))).rejects.toBe(other);
    const crash = new Error('poller failed');
    await expect(runWorker(endingWith(() => Promise.reject(crash)))).rejects.toBe(crash);
  });
});
