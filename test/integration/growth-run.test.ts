import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { runBench } from '../helpers/bench';

type Latency = {
  count: number;
  errors: number;
  p50: number | null;
  p99: number | null;
  offersPerCall?: number;
  bookingsMade?: number;
  bookingsCancelled?: number;
};
type Plan = { statement: string; plan: string; error?: string; findings: string[] };
type Census = { deliveries: number; partners: number; riders: number };
type Growth = {
  asked: { deliveries: number; partners: number; riders: number; own: number };
  own: { deliveries: number; ownPartner: string | null };
  seeding: { deliveries: number; partners: number; riders: number; events: number; webhookEvents: number; debits: number; seconds: number };
  counts: { start: Census; before: Census; after: Census };
  paths: { id: string; before: Latency; after: Latency; ratio: number | null }[];
  plans: { before: Record<string, Plan[]>; after: Record<string, Plan[]> };
};
type Results = { scenarios: { id: string; growth?: Growth }[] };

const PATHS = ['read', 'list', 'list-deep', 'track', 'dispatch', 'offers', 'ping', 'booking'];

// The growth scenario as a user runs it (`npm run bench -- --only growth`), at a size that takes
// seconds: the figures say nothing about speed here. What is checked is that the seeding command
// makes what it is asked for, that every hot path is driven against the real stack on both sides
// of it without a failure, and that each path's plan is recorded.
describe('npm run bench -- --only growth', () => {
  const resultsDir = mkdtempSync(path.join(tmpdir(), 'bench-growth-'));
  afterAll(() => rmSync(resultsDir, { recursive: true, force: true }));

  it('measures every hot path before and after seeding, seeds what was asked, and records each path\'s plans', () => {
    const resultsFile = path.join(resultsDir, 'results.json');
    const size = ['--growth-deliveries', '3000', '--growth-own', '300', '--growth-seconds', '0.5', '--growth-rate', '10', '--growth-booking-rate', '2'];
    const { code, output } = runBench(['--only', 'growth', ...size, '--results', resultsFile], 110_000);
    expect({ code, output: code === 0 ? '' : output }).toEqual({ code: 0, output: '' });
    expect(output).toMatch(/\| GET \/partner\/deliveries\/\{id\} +\| 10 +\|/);

    const results = JSON.parse(readFileSync(resultsFile, 'utf8')) as Results;
    expect(results.scenarios.map((s) => s.id)).toEqual(['growth']);
    const growth = results.scenarios[0]?.growth as Growth;

    // Partners and riders come in the proportions: one per 1,000 and one per 50 deliveries.
    expect(growth.asked).toEqual({ deliveries: 3000, partners: 3, riders: 60, own: 300 });
    expect(growth.seeding).toMatchObject({ deliveries: 3000, partners: 3, riders: 60, debits: 3000 });
    expect(growth.own).toMatchObject({ deliveries: 300, ownPartner: expect.any(String) });
    const { before, after } = growth.counts;
    expect({ deliveries: after.deliveries - before.deliveries, partners: after.partners - before.partners, riders: after.riders - before.riders }).toEqual({
      deliveries: 3000,
      partners: 3,
      riders: 60,
    });
    // A trail entry for every status each delivery reached: at least its booking's, more for most.
    expect(growth.seeding.events).toBeGreaterThan(3 * 3000);
    expect(growth.seeding.webhookEvents).toBeGreaterThan(2 * 3000);

    expect(growth.paths.map((p) => p.id)).toEqual(PATHS);
    for (const p of growth.paths) {
      for (const side of ['before', 'after'] as const) {
        expect({ path: p.id, side, errors: p[side].errors }).toEqual({ path: p.id, side, errors: 0 });
        expect(p[side].count).toBeGreaterThan(0);
        expect(p[side].p99).toBeGreaterThan(0);
      }
      expect(p.ratio).toBeGreaterThan(0);
    }
    // Dispatch found the bench's riders at the pickup on both sides.
    const dispatch = growth.paths.find((p) => p.id === 'dispatch');
    expect(dispatch?.before.offersPerCall).toBeGreaterThan(0);
    expect(dispatch?.after.offersPerCall).toBeGreaterThan(0);
    // Each phase cancels the bookings it made, so their dispatch rounds do not load the next.
    const booking = growth.paths.find((p) => p.id === 'booking');
    for (const side of ['before', 'after'] as const) {
      expect(booking?.[side].bookingsMade).toBeGreaterThan(0);
      expect(booking?.[side].bookingsCancelled).toBe(booking?.[side].bookingsMade);
    }

    // Every path's statements, planned and run by PostgreSQL (EXPLAIN ANALYZE through auto_explain).
    for (const side of ['before', 'after'] as const) {
      expect(Object.keys(growth.plans[side]).sort()).toEqual([...PATHS].sort());
      for (const [id, plans] of Object.entries(growth.plans[side])) {
        expect({ id, side, errors: plans.map((p) => p.error ?? null) }).toEqual({ id, side, errors: plans.map(() => null) });
        expect(plans.length).toBeGreaterThan(0);
        for (const p of plans) expect(p.plan).toMatch(/\(actual time=[\d.]+\.\.[\d.]+ rows=/);
      }
    }
    expect(growth.plans.after.booking?.map((p) => p.statement).join('\n')).toMatch(/insert into deliveries/);
    expect(growth.plans.after.dispatch?.map((p) => p.statement).join('\n')).toMatch(/insert into rider_offers/);
  }, 120_000);
});
