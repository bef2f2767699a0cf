import { setTimeout as sleep } from 'node:timers/promises';
import { connectTemporal } from '../helpers/temporal-connection';
import { startTcpProxy, type TcpProxy } from '../fakes/tcp-proxy';

// The test files' own Temporal connection: closing it never strands a retry of the SDK's, which
// would throw from a timer into whatever test the jest process runs next.

let link: TcpProxy;
beforeAll(async () => {
  const [host, port] = (process.env.TEST_TEMPORAL_ADDRESS as string).split(':');
  link = await startTcpProxy(host as string, Number(port));
});
afterAll(async () => {
  await link?.close();
});

describe('a test file’s Temporal connection', () => {
  it('closes at once when no call is in flight, and takes no call after', async () => {
    const temporal = await connectTemporal(`127.0.0.1:${link.port}`);
    await temporal.connection.workflowService.getSystemInfo({});
    await temporal.close();
    await expect(temporal.connection.workflowService.getSystemInfo({})).rejects.toThrow(/shut down/);
  });

  it('stays open for a call the SDK is still retrying, which then gets its answer', async () => {
    const temporal = await connectTemporal(`127.0.0.1:${link.port}`);
    await temporal.connection.workflowService.getSystemInfo({});
    await link.cut();
    const call = temporal.connection.workflowService.describeNamespace({ namespace: 'default' });
    const settled = call.then(() => 'answered', () => 'failed');
    await sleep(300);
    await temporal.close(200);
    // Retries fire meanwhile: on a closed channel each would throw outside any promise, and jest
    // would fail this test with "Channel has been shut down".
    await sleep(1_000);
    await link.restore();
    expect(await settled).toBe('answered');
    await temporal.close();
  }, 30_000);
});
