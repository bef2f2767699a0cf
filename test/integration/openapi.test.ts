import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startTestStack, type TestStack } from '../helpers/stack';
import { makePartner } from '../helpers/partners';
import { api } from '../helpers/http';
import { bookingBody } from '../helpers/bookings';

let stack: TestStack;
const lintDir = mkdtempSync(path.join(tmpdir(), 'openapi-'));
beforeAll(async () => {
  stack = await startTestStack({ withoutWorker: true });
});
afterAll(async () => {
  await stack?.close();
  rmSync(lintDir, { recursive: true, force: true });
});

describe('the API description', () => {
  it('is served at /openapi.json and passes the OpenAPI 3.1 linter', async () => {
    const res = await fetch(`${stack.baseUrl}/openapi.json`);
    expect(res.status).toBe(200);
    const document = (await res.json()) as { openapi: string; paths: Record<string, unknown> };
    expect(document.openapi).toBe('3.1.0');
    expect(Object.keys(document.paths)).toEqual(
      expect.arrayContaining([
        '/partner/quotes',
        '/partner/deliveries',
        '/partner/deliveries/{id}',
        '/partner/deliveries/{id}/cancel',
        '/partner/payment-methods',
        '/partner/payment-methods/{id}',
        '/partner/webhook',
        '/track/{id}/public',
        '/places/autocomplete',
        '/places/resolve',
      ]),
    );
    // The callbacks a partner receives are described too, their `data` the same Delivery schema.
    const { webhooks, components } = document as unknown as {
      webhooks: Record<string, { post: { requestBody: { content: Record<string, { schema: { $ref: string } }> }; parameters: { name: string }[] } }>;
      components: { schemas: Record<string, { properties: Record<string, unknown> }> };
    };
    const callback = webhooks.deliveryStatusChanged!.post;
    expect(callback.requestBody.content['application/json']!.schema).toEqual({ $ref: '#/components/schemas/DeliveryCallback' });
    expect(callback.parameters.map((p) => p.name)).toEqual(expect.arrayContaining(['X-Service-Signature', 'X-Service-Event-Id']));
    expect(components.schemas.DeliveryCallback!.properties.data).toEqual({ $ref: '#/components/schemas/Delivery' });
    // The dashboard's test event reaches the same URL: it is described too, so a receiver built
    // from the document expects it.
    const test = webhooks.webhookTest!.post;
    expect(test.requestBody.content['application/json']!.schema).toEqual({ $ref: '#/components/schemas/TestCallback' });
    expect(test.parameters.map((p) => p.name)).toEqual(callback.parameters.map((p) => p.name));
    const file = path.join(lintDir, 'openapi.json');
    writeFileSync(file, JSON.stringify(document));
    const lint = spawnSync(path.resolve('node_modules/.bin/redocly'), ['lint', file, '--format=json'], {
      encoding: 'utf8',
      env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
    });
    const report = JSON.parse(lint.stdout.slice(lint.stdout.indexOf('{')));
    expect(report.totals).toEqual({ errors: 0, warnings: 0, ignored: 0 });
    expect(lint.status).toBe(0);
  }, 120_000);

  it('writes each closed set of values of the contract as a string enum, and a refusal names the values', async () => {
    const document = (await (await fetch(`${stack.baseUrl}/openapi.json`)).json()) as {
      components: { schemas: Record<string, { properties: Record<string, { type?: string; enum?: string[]; description?: string }> }> };
    };
    const { schemas } = document.components;
    const closed = (schema: string, field: string) => {
      const { type, enum: values } = schemas[schema]!.properties[field]!;
      return { type, enum: values };
    };
    const statuses = ['pending', 'accepted', 'picked_up', 'in_transit', 'delivered', 'cancelled', 'expired'];
    expect(closed('BookingRequest', 'package_size')).toEqual({ type: 'string', enum: ['small', 'medium', 'large'] });
    expect(closed('BookingRequest', 'payment_method')).toEqual({ type: 'string', enum: ['gateway'] });
    expect(closed('BookingRequest', 'verification_method')).toEqual({ type: 'string', enum: ['none', 'otp', 'photo'] });
    expect(closed('Delivery', 'status')).toEqual({ type: 'string', enum: statuses });
    expect(closed('Delivery', 'payment_status')).toEqual({ type: 'string', enum: ['pending', 'paid', 'failed'] });
    // A partner who polls learns from the document itself that it may change after the last webhook.
    expect(schemas['Delivery']!.properties['payment_status']!.description).toMatch(
      /change once more after the delivery's last webhook, and no webhook is sent for that.*`failed` into `paid`.*`paid` into `failed`.*reads the delivery again/s,
    );
    expect(closed('PublicTracking', 'status')).toEqual({ type: 'string', enum: statuses });
    expect(closed('PaymentMethodRequest', 'provider')).toEqual({ type: 'string', enum: ['network_a', 'network_b', 'network_c'] });

    const { liveKey } = await makePartner(stack.orm);
    const res = await api(stack.baseUrl, liveKey).post('/partner/deliveries', bookingBody({ package_size: 'huge', payment_method: 'momo' }));
    expect(res.status).toBe(400);
    expect(res.body.error.details).toEqual({
      package_size: expect.stringContaining('small, medium, large'),
      payment_method: expect.stringContaining('gateway'),
    });
  });

  it('names the refusals a partner must handle beyond schema faults, where the contract lists them', async () => {
    const document = (await (await fetch(`${stack.baseUrl}/openapi.json`)).json()) as {
      paths: Record<string, Record<string, { responses: Record<string, { description: string }> }>>;
    };
    const refusal = (path: string, method: string) => document.paths[path]![method]!.responses['400']!.description;
    // Booking is refused until an account is registered (contract, booking rule 3).
    expect(refusal('/partner/deliveries', 'post')).toMatch(/no Mobile Money account/);
    // Cancelling past picked_up is a 400, with the status in details (DESIGN section 9).
    expect(refusal('/partner/deliveries/{id}/cancel', 'post')).toMatch(/picked_up.*details\.status/);
    // A number that does not exist or is on another network is refused and not saved.
    expect(refusal('/partner/payment-methods', 'post')).toMatch(/does not exist.*another network/);
  });

  it('serves an interactive page at /docs from local assets only', async () => {
    const res = await fetch(`${stack.baseUrl}/docs/`);
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toContain('swagger-ui');
    expect(html).not.toMatch(/https?:\/\/(?!localhost)[a-z0-9.-]+\.[a-z]{2,}\/[^"']*\.(js|css)/i);
    const script = html.match(/src="(\.\/swagger-ui-bundle\.js)"/);
    expect(script).not.toBeNull();
    expect((await fetch(`${stack.baseUrl}/docs/swagger-ui-bundle.js`)).status).toBe(200);
    // Outside production the page may be served over plain http on any host name.
    expect(res.headers.get('content-security-policy')).not.toContain('upgrade-insecure-requests');
  });

  it('answers /healthz while the process is up and /readyz when Postgres and Temporal answer', async () => {
    expect(await (await fetch(`${stack.baseUrl}/healthz`)).json()).toEqual({ status: 'ok' });
    const ready = await fetch(`${stack.baseUrl}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ status: 'ready', checks: { database: 'ok', temporal: 'ok' } });
  });
});
