import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Client } from '@temporalio/client';
import { createLogger } from '../../config/logger';
import { loadSettings, type Settings } from '../../config/settings';
import { selectGateways } from '../../integrations/mobile-money/select';
import { PaystackGateway } from '../../integrations/mobile-money/paystack';
import { SandboxNetwork, type SandboxLedger } from '../../integrations/mobile-money/sandbox';
import { HttpSms } from '../../integrations/sms/http-sms';
import { OutboxSms } from '../../integrations/sms/outbox';
import { activityDeps } from '../../workers/activity-deps';
import { LIVE_PROVIDERS } from '../helpers/live-providers';

// What the production settings wire up: live bookings go where the settings say, test-mode ones
// always to the sandbox and the outbox, and the callback address guard has no switch.

const production = {
  DATABASE_URL: 'postgres://u@localhost:5432/db',
  NODE_ENV: 'production',
  SITE_URL: 'https://track.example.com.gh',
  SMTP_URL: 'smtp://smtp.example.com.gh',
  MAIL_FROM: 'Deliveries <no-reply@example.com.gh>',
  METRICS_TOKEN: 'metrics-token-0123456789abcdefghijklmnop',
};
const live = loadSettings({
  ...production,
  ...LIVE_PROVIDERS,
});
const staging = loadSettings({ ...production, ALLOW_SANDBOX_IN_PRODUCTION: 'true', PHOTO_STORE: 'local' });

// Nothing here reaches a database or Temporal: the stand-ins are only built, never called.
const unusedLedger = {} as SandboxLedger;
const unusedOrm = {
  em: {
    fork: () => {
      throw new Error('no database in this test');
    },
  },
} as unknown as MikroORM;
const unusedTemporal = {} as Client;
const logger = createLogger({ level: 'error', json: true, service: 'test' });
const depsFor = (settings: Settings) =>
  activityDeps({ settings, orm: unusedOrm, temporal: unusedTemporal, logger, gateways: selectGateways(settings, unusedLedger).gateways });

describe('production wiring', () => {
  it('sends live debits to Paystack and live codes to the SMS API, test-mode ones to the sandbox and the outbox', () => {
    const { sandbox, gateways } = selectGateways(live, unusedLedger);
    expect(gateways.live).toBeInstanceOf(PaystackGateway);
    expect(gateways.test).toBe(sandbox);
    expect(sandbox).toBeInstanceOf(SandboxNetwork);
    const { sms } = depsFor(live);
    expect(sms.live).toBeInstanceOf(HttpSms);
    expect(sms.test).toBeInstanceOf(OutboxSms);
  });

  it('on a staging deployment sends live debits to the sandbox and live codes to the outbox, as test mode', () => {
    const { sandbox, gateways } = selectGateways(staging, unusedLedger);
    expect(gateways.live).toBe(sandbox);
    expect(gateways.test).toBe(sandbox);
    const { sms } = depsFor(staging);
    expect(sms.live).toBeInstanceOf(OutboxSms);
    expect(sms.test).toBeInstanceOf(OutboxSms);
  });

  describe('the callback address guard', () => {
    let server: http.Server;
    let calls = 0;
    beforeAll(async () => {
      server = http.createServer((_req, res) => {
        calls += 1;
        res.writeHead(204).end();
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    });
    afterAll(async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    });

    it.each([
      ['live', live],
      ['staging (ALLOW_SANDBOX_IN_PRODUCTION=true)', staging],
    ])('refuses loopback in production, %s: no setting turns it off', async (_what, settings) => {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
      await expect(depsFor(settings).webhookHttp.post(url, '{}', { 'Content-Type': 'application/json' })).rejects.toThrow(/is not allowed/);
      expect(calls).toBe(0);
    });
  });
});
