import { percentile, round, summary } from '../../bench/lib/stats.mjs';

const oneToTen = [7, 3, 10, 1, 9, 2, 8, 5, 4, 6];
const oneToHundred = Array.from({ length: 100 }, (_, i) => 100 - i);

describe('percentile', () => {
  it('has no value for no samples', () => {
    expect(percentile([], 50)).toBeNull();
    expect(percentile([], 100)).toBeNull();
  });

  it('takes the nearest rank: the smallest sample with at least p% of the samples at or below it', () => {
    expect(percentile(oneToTen, 50)).toBe(5);
    expect(percentile(oneToTen, 90)).toBe(9);
    expect(percentile(oneToTen, 91)).toBe(10);
    expect(percentile(oneToTen, 99)).toBe(10);
    expect(percentile(oneToHundred, 99)).toBe(99);
    expect(percentile(oneToHundred, 50)).toBe(50);
    expect(percentile([4, 1, 3, 2], 25)).toBe(1);
    expect(percentile([4, 1, 3, 2], 26)).toBe(2);
  });

  it('gives the largest sample at p100 and the smallest at p0 and p1', () => {
    expect(percentile(oneToTen, 100)).toBe(10);
    expect(percentile(oneToTen, 0)).toBe(1);
    expect(percentile(oneToTen, 1)).toBe(1);
    expect(percentile([42], 0)).toBe(42);
    expect(percentile([42], 100)).toBe(42);
  });

  it('orders samples as numbers, not as text, and leaves the caller’s array as it was', () => {
    const samples = [100, 9, 20, 3];
    expect(percentile(samples, 100)).toBe(100);
    expect(percentile(samples, 50)).toBe(9);
    expect(samples).toEqual([100, 9, 20, 3]);
  });
});

describe('summary', () => {
  it('counts the samples and gives p50, p90, p99 and the maximum', () => {
    expect(summary(oneToHundred)).toEqual({ count: 100, p50: 50, p90: 90, p99: 99, max: 100 });
    expect(summary([2.5, 0.5, 1.5])).toEqual({ count: 3, p50: 1.5, p90: 2.5, p99: 2.5, max: 2.5 });
  });

  it('has a count of 0 and no values for no samples', () => {
    expect(summary([])).toEqual({ count: 0, p50: null, p90: null, p99: null, max: null });
  });
});

describe('round', () => {
  it('rounds to one decimal unless told how many', () => {
    expect(round(12.345)).toBe(12.3);
    expect(round(12.36)).toBe(12.4);
    expect(round(12.345, 2)).toBe(12.35);
    expect(round(2.0049, 2)).toBe(2);
    expect(round(1234.5678, 0)).toBe(1235);
    expect(round(-1.26)).toBe(-1.3);
  });

  it('keeps a missing value missing, and zero as zero', () => {
    expect(round(null)).toBeNull();
    expect(round(undefined)).toBeNull();
    expect(round(0)).toBe(0);
  });
});
