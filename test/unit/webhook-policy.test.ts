import { loadSettings } from '../../config/settings';
import { deliveryTimings } from '../../domain/timings';
import { webhookActivityOptions } from '../../workflows/webhook-policy';

/** Seconds in a Temporal duration string of the form the policy writes ("15 seconds"). */
function seconds(duration: unknown): number {
  const match = /^(\d+(?:\.\d+)?) seconds$/.exec(String(duration));
  if (!match) throw new Error(`unexpected duration ${String(duration)}`);
  return Number(match[1]);
}

describe('the callback retry policy with the default settings', () => {
  const options = webhookActivityOptions(deliveryTimings(loadSettings({ DATABASE_URL: 'postgres://u@localhost:5432/db' })));
  const retry = options.retry!;

  it('tries a callback six times in all: the first send and five retries', () => {
    expect(retry.maximumAttempts).toBe(6);
  });

  it('waits 15 s, 75 s, about 6 min, about 31 min and about 2.6 h between the tries (DESIGN section 9)', () => {
    // Temporal waits initialInterval × backoffCoefficientⁿ⁻¹ after the n-th failed try, capped at maximumInterval.
    const initial = seconds(retry.initialInterval);
    const cap = seconds(retry.maximumInterval);
    const waits = [1, 2, 3, 4, 5].map((n) => Math.min(initial * retry.backoffCoefficient! ** (n - 1), cap));
    expect(waits).toEqual([15, 75, 375, 1875, 9375]);
    expect(waits[4]! / 3600).toBeCloseTo(2.6, 1);
  });

  it('gives each try the contract’s 10 s for the receiver, and a margin to record the outcome', () => {
    const limit = seconds(options.startToCloseTimeout);
    expect(limit).toBeGreaterThan(10);
    expect(limit).toBeLessThanOrEqual(15);
  });
});
