import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setWebhookUrl } from '../../api/partner/webhook-settings';
import { createLogger } from '../../config/logger';
import { loadSettings, webhooksMayReachPrivateAddresses, type Settings } from '../../config/settings';
import { activityDeps } from '../../workers/activity-deps';

let receiver: Server;
let localUrl: string;

beforeAll(async () => {
  receiver = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(204).end());
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  localUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
});
afterAll(async () => {
  receiver.closeAllConnections();
  await new Promise((resolve) => receiver.close(resolve));
});

/** Settings as loaded for an environment; `staging` stands for any name the code does not know yet. */
function settingsFor(nodeEnv: string): Settings {
  return { ...loadSettings({ DATABASE_URL: 'postgres://localhost/unused', NODE_ENV: 'test' }), nodeEnv: nodeEnv as Settings['nodeEnv'] };
}

/** The worker's callback sender, built as workers/main.ts builds it; nothing here touches the database. */
function senderFor(nodeEnv: string) {
  return activityDeps({
    settings: settingsFor(nodeEnv),
    orm: {} as never,
    temporal: {} as never,
    logger: createLogger({ level: 'error', json: false, service: 'test' }),
    gateways: { live: {} as never, test: {} as never },
  }).webhookHttp;
}

describe('callbacks to private addresses', () => {
  it('are allowed only in development and test', () => {
    expect(['development', 'test', 'production', 'staging', ''].filter(webhooksMayReachPrivateAddresses)).toEqual(['development', 'test']);
  });

  it.each(['development', 'test'])('reach a loopback receiver at send time in %s', async (nodeEnv) => {
    await expect(senderFor(nodeEnv).post(localUrl, '{}', { 'Content-Type': 'application/json' })).resolves.toMatchObject({ status: 204 });
  });

  it.each(['production', 'staging'])('are refused at send time in %s', async (nodeEnv) => {
    await expect(senderFor(nodeEnv).post(localUrl, '{}', { 'Content-Type': 'application/json' })).rejects.toThrow(/not allowed|private|loopback/i);
  });

  it.each(['production', 'staging'])('are refused when the URL is set in %s', async (nodeEnv) => {
    const setting = setWebhookUrl({ orm: {} as never, settings: settingsFor(nodeEnv) }, { partnerId: 'p', mode: 'test' } as never, localUrl);
    await expect(setting).rejects.toMatchObject({ status: 400, code: 'bad_request' });
  });
});
