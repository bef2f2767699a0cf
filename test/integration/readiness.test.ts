import { Client, Connection } from '@temporalio/client';
import { initOrm, type Orm } from '../../db/orm';
import { startTcpProxy, type TcpProxy } from '../fakes/tcp-proxy';
import { eventually } from '../helpers/http';
import { startTestStack, type TestStack } from '../helpers/stack';

// The API reaches Postgres and Temporal through relays the test can cut, as a network partition
// or a crashed database would; the services themselves stay up for every other test.
let stack: TestStack;
let database: TcpProxy;
let temporalLink: TcpProxy;
let orm: Orm;
let connection: Connection;

beforeAll(async () => {
  const databaseUrl = new URL(process.env.TEST_DATABASE_URL ?? '');
  database = await startTcpProxy(databaseUrl.hostname, Number(databaseUrl.port));
  databaseUrl.hostname = '127.0.0.1';
  databaseUrl.port = String(database.port);
  orm = await initOrm(databaseUrl.toString(), 2);

  const [host, port] = (process.env.TEST_TEMPORAL_ADDRESS ?? '').split(':');
  temporalLink = await startTcpProxy(host ?? '127.0.0.1', Number(port));
  // No client-side retries: a retry timer left over from the outage would fire after teardown.
  connection = await Connection.connect({ address: `127.0.0.1:${temporalLink.port}`, interceptors: [] });
  stack = await startTestStack({
    withoutWorker: true,
    appOverrides: { orm, temporal: new Client({ connection, namespace: 'default' }) },
  });
});

afterAll(async () => {
  await stack?.close();
  await connection?.close();
  await orm?.close();
  await database?.close();
  await temporalLink?.close();
});

async function readiness() {
  const response = await fetch(`${stack.baseUrl}/readyz`);
  return { status: response.status, body: (await response.json()) as Record<string, any> };
}

const liveness = async () => (await fetch(`${stack.baseUrl}/healthz`)).status;

describe('readiness', () => {
  it('is ready while Postgres and Temporal both answer', async () => {
    expect(await readiness()).toEqual({ status: 200, body: { status: 'ready', checks: { database: 'ok', temporal: 'ok' } } });
  });

  it('answers 503 naming the database while Postgres is unreachable, and recovers when it is back', async () => {
    await database.cut();
    const down = await readiness();
    expect(down.status).toBe(503);
    expect(down.body).toEqual({
      error: { code: 'unavailable', message: 'Not ready', details: { checks: { database: 'unreachable', temporal: 'ok' } } },
    });
    // Alive all the same: a balancer stops sending traffic, nothing restarts the process.
    expect(await liveness()).toBe(200);

    await database.restore();
    await eventually(async () => (await readiness()).status === 200, 15_000, 'ready again after Postgres returns');
  });

  it('answers 503 naming Temporal while Temporal is unreachable, and recovers when it is back', async () => {
    await temporalLink.cut();
    const down = await readiness();
    expect(down.status).toBe(503);
    expect(down.body.error.details.checks).toEqual({ database: 'ok', temporal: 'unreachable' });
    expect(await liveness()).toBe(200);

    await temporalLink.restore();
    await eventually(async () => (await readiness()).status === 200, 20_000, 'ready again after Temporal returns');
  });
});
