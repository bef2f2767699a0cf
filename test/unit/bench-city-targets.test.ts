import { p99TargetOf } from '../../bench/lib/city-report.mjs';

describe("the city's targets", () => {
  it("hold a rider's step, which waits for a workflow update, to 250 ms and every other endpoint to 100 ms", () => {
    expect(['accept', 'pickup', 'depart', 'deliver'].map((step) => p99TargetOf(`POST /rider/deliveries/{id}/${step}`))).toEqual([250, 250, 250, 250]);
    expect(p99TargetOf('POST /rider/deliveries/{id}/stops/{index}/complete')).toBe(250);
    expect(['POST /rider/location', 'GET /rider/offers', 'GET /track/{id}/public', 'GET /partner/deliveries/{id}', 'POST /partner/deliveries'].map(p99TargetOf)).toEqual([
      100, 100, 100, 100, 100,
    ]);
  });
});
