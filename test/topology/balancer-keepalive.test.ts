import { startComposeNginx, startStandInApi, startTopologyHaproxy, type Balancer, type StandInApi } from '../helpers/balancers';

/**
 * Both balancers keep their connections to the API processes open between requests: a request
 * reuses an idle one rather than paying a TCP handshake and a socket on both sides of its own.
 */
const BALANCERS: [string, (apis: StandInApi[]) => Promise<Balancer>][] = [
  ['HAProxy (npm run topology)', startTopologyHaproxy],
  ['nginx (the compose stack)', startComposeNginx],
];

const CLIENTS = 4;
const EACH = 25;

describe.each(BALANCERS)('%s in front of two API processes', (_name, startBalancer) => {
  let apis: StandInApi[] = [];
  let balancer: Balancer | undefined;

  beforeAll(async () => {
    apis = [await startStandInApi('api-1', { dies: false }), await startStandInApi('api-2', { dies: false })];
    balancer = await startBalancer(apis);
  });

  afterAll(async () => {
    await balancer?.stop();
    for (const api of apis) await api.close();
  });

  it(`opens a few connections to them for ${CLIENTS * EACH} requests, not one each`, async () => {
    // Each client sends its requests one after another, as a partner's server polling does.
    const client = async (c: number) => {
      for (let n = 0; n < EACH; n++) {
        const res = await fetch(`${balancer!.baseUrl}/api/v1/partner/deliveries/${c}-${n}`);
        expect(res.status).toBe(200);
        await res.text();
      }
    };
    await Promise.all(Array.from({ length: CLIENTS }, (_, c) => client(c)));

    const answered = apis.reduce((sum, api) => sum + api.received.length, 0);
    const opened = apis.reduce((sum, api) => sum + api.connections, 0);
    expect(answered).toBe(CLIENTS * EACH);
    // At most one per client per process, were every request to find the other's connections busy.
    expect(opened).toBeLessThanOrEqual(CLIENTS * apis.length);
  });
});
