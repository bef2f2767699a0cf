import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { capturingLogger } from '../helpers/captured-logs';
import { exited, ourProgram } from '../helpers/child-process';
import { api } from '../helpers/http';
import { book, registerAccount } from '../helpers/bookings';
import { makePartner } from '../helpers/partners';
import { startTestStack, type TestStack } from '../helpers/stack';

// The production rules as an operator meets them: the processes themselves, started as the image
// starts them, refuse a production start on stand-ins, or say loudly that they run on them.

const ENTRIES = { api: 'api/main.ts', worker: 'workers/main.ts' } as const;

const dataDir = mkdtempSync(path.join(tmpdir(), 'production-settings-'));
const children: ChildProcess[] = [];
afterAll(async () => {
  for (const child of children) {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await exited(child);
  }
  rmSync(dataDir, { recursive: true, force: true });
});

/** A process started from its entry file with only the given environment (and PATH). */
function start(entry: string, env: Record<string, string>) {
  const { command, args, cwd } = ourProgram(entry);
  const child = spawn(command, args, { cwd, env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  const output = { stdout: '', stderr: '' };
  child.stdout.on('data', (chunk: Buffer) => (output.stdout += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (output.stderr += chunk.toString('utf8')));
  return { child, output };
}

/** The JSON log lines written so far (production logs one object per line). */
function logLines(stdout: string): Record<string, unknown>[] {
  return stdout
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

function until(condition: () => boolean, what: () => string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  return new Promise((resolve, reject) => {
    const check = () => {
      if (condition()) return resolve();
      if (Date.now() > deadline) return reject(new Error(`timed out waiting: ${what()}`));
      setTimeout(check, 100);
    };
    check();
  });
}

/** A TCP listener that counts who connects: the database and Temporal a refused process must never reach. */
async function sentinel(): Promise<{ port: number; connections: () => number; close: () => Promise<void> }> {
  let connections = 0;
  const server = net.createServer((socket) => {
    connections += 1;
    socket.destroy();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    connections: () => connections,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

describe.each(Object.entries(ENTRIES))('the %s process with NODE_ENV=production', (_name, entry) => {
  it('refuses to start without a real gateway, SMS provider, masked-calling provider, SMTP server and photo store, naming each, before connecting to anything', async () => {
    const listener = await sentinel();
    try {
      const began = Date.now();
      const { child, output } = start(entry, {
        NODE_ENV: 'production',
        SITE_URL: 'https://deliveries.example.com.gh',
        METRICS_TOKEN: 'metrics-token-0123456789abcdefghijklmnop',
        DATABASE_URL: `postgres://delivery@127.0.0.1:${listener.port}/delivery`,
        TEMPORAL_ADDRESS: `127.0.0.1:${listener.port}`,
        PORT: '0',
        DATA_DIR: dataDir,
      });
      await exited(child);
      expect(child.exitCode).toBe(78);
      expect(output.stderr.trim().split('\n')).toEqual([
        expect.stringMatching(/^Invalid setting PAYMENT_GATEWAY: required when NODE_ENV=production .*PAYMENT_GATEWAY=paystack with PAYSTACK_SECRET_KEY/),
        expect.stringMatching(/^Invalid setting SMS_PROVIDER: required when NODE_ENV=production .*SMS_PROVIDER=http with SMS_URL and SMS_API_KEY/),
        expect.stringMatching(/^Invalid setting CALL_MASKING: required when NODE_ENV=production .*CALL_MASKING=twilio-proxy with TWILIO_ACCOUNT_SID, TWILIO_AUTH_TOKEN and TWILIO_PROXY_SERVICE_SID/),
        expect.stringMatching(/^Invalid setting SMTP_URL: required when NODE_ENV=production/),
        expect.stringMatching(/^Invalid setting PHOTO_STORE: required when NODE_ENV=production .*PHOTO_STORE=s3 with S3_BUCKET/),
      ]);
      expect(output.stdout).toBe('');
      // Settings are checked first: nothing was opened, so the refusal comes in seconds.
      expect(listener.connections()).toBe(0);
      expect(Date.now() - began).toBeLessThan(20_000);
    } finally {
      await listener.close();
    }
  }, 30_000);

  it('refuses the sandbox, the outbox and the local call bridge named outright too, unless ALLOW_SANDBOX_IN_PRODUCTION=true', async () => {
    const { child, output } = start(entry, {
      NODE_ENV: 'production',
      SITE_URL: 'https://deliveries.example.com.gh',
      METRICS_TOKEN: 'metrics-token-0123456789abcdefghijklmnop',
      DATABASE_URL: 'postgres://delivery@127.0.0.1:1/delivery',
      PAYMENT_GATEWAY: 'sandbox',
      SMS_PROVIDER: 'outbox',
      CALL_MASKING: 'local',
      SMTP_URL: 'smtp://127.0.0.1:1',
      MAIL_FROM: 'Deliveries <no-reply@example.com.gh>',
      PHOTO_STORE: 'local',
      DATA_DIR: dataDir,
    });
    await exited(child);
    expect(child.exitCode).toBe(78);
    expect(output.stderr.trim().split('\n')).toEqual([
      expect.stringMatching(/^Invalid setting PAYMENT_GATEWAY: sandbox is refused when NODE_ENV=production: .*or ALLOW_SANDBOX_IN_PRODUCTION=true for a staging deployment$/),
      expect.stringMatching(/^Invalid setting SMS_PROVIDER: outbox is refused when NODE_ENV=production: .*or ALLOW_SANDBOX_IN_PRODUCTION=true for a staging deployment$/),
      expect.stringMatching(/^Invalid setting CALL_MASKING: local is refused when NODE_ENV=production: .*or ALLOW_SANDBOX_IN_PRODUCTION=true for a staging deployment$/),
    ]);
  }, 30_000);
});

describe('a staging deployment (ALLOW_SANDBOX_IN_PRODUCTION=true)', () => {
  const queues: string[] = [];
  afterAll(async () => {
    // A worker keeps Temporal Schedules for its task queue; these queues end with the test.
    const connection = await Connection.connect({ address: process.env.TEST_TEMPORAL_ADDRESS });
    try {
      const client = new Client({ connection });
      for await (const schedule of client.schedule.list()) {
        if (queues.some((queue) => schedule.scheduleId.includes(queue))) await client.schedule.getHandle(schedule.scheduleId).delete();
      }
    } finally {
      await connection.close();
    }
  });
  const queue = () => {
    queues.push(`staging-${randomUUID()}`);
    return queues[queues.length - 1] as string;
  };
  const staging = () => ({
    NODE_ENV: 'production',
    ALLOW_SANDBOX_IN_PRODUCTION: 'true',
    SITE_URL: 'https://staging.example.com.gh',
    METRICS_TOKEN: 'metrics-token-0123456789abcdefghijklmnop',
    PHOTO_STORE: 'local',
    DATABASE_URL: process.env.TEST_DATABASE_URL ?? '',
    TEMPORAL_ADDRESS: process.env.TEST_TEMPORAL_ADDRESS ?? '',
    // A queue of its own: this worker must take no other suite's tasks.
    TEMPORAL_TASK_QUEUE: queue(),
    PORT: '0',
    LOG_LEVEL: 'info',
    DATA_DIR: dataDir,
    ...(process.env.WORKFLOW_BUNDLE ? { WORKFLOW_BUNDLE: process.env.WORKFLOW_BUNDLE } : {}),
  });
  const started = { api: 'API listening', worker: 'Worker started' } as const;

  it.each(Object.entries(ENTRIES))('%s starts and warns in its log, before anything else, what is sandboxed', async (name, entry) => {
    const { child, output } = start(entry, staging());
    const ready = started[name as keyof typeof started];
    await until(
      () => logLines(output.stdout).some((line) => line.message === ready) || child.exitCode !== null,
      () => `${ready}\n${output.stdout}\n${output.stderr}`,
      60_000,
    );
    expect({ exitCode: child.exitCode, stderr: output.stderr }).toEqual({ exitCode: null, stderr: '' });
    const lines = logLines(output.stdout);
    expect(lines[0]).toMatchObject({
      level: 'warn',
      service: name,
      message: expect.stringMatching(/^Sandboxed in production \(ALLOW_SANDBOX_IN_PRODUCTION=true\): live payments go to a test network/),
      sandboxed: ['payments', 'texts', 'calls', 'mail'],
    });
    child.kill('SIGTERM');
    await exited(child);
    expect(child.exitCode).toBe(0);
  }, 90_000);
});

describe('a live booking on a staging deployment', () => {
  let stack: TestStack;
  const captured = capturingLogger('info', 'api');
  beforeAll(async () => {
    stack = await startTestStack({
      env: { NODE_ENV: 'production', ALLOW_SANDBOX_IN_PRODUCTION: 'true', SITE_URL: 'https://staging.example.com.gh', METRICS_TOKEN: 'metrics-token-0123456789abcdefghijklmnop', PHOTO_STORE: 'local' },
      appOverrides: { logger: captured.logger },
    });
  });
  afterAll(async () => {
    await stack?.close();
  });

  const sandboxWarnings = () =>
    captured.lines.map((line) => JSON.parse(line) as Record<string, unknown>).filter((line) => /^Live booking taken while live payments go to a test network/.test(String(line.message)));

  it('is logged as a warning naming the delivery, each time; a test-mode booking is not', async () => {
    const partner = await makePartner(stack.orm);
    await registerAccount(stack.baseUrl, partner.liveKey);
    await registerAccount(stack.baseUrl, partner.testKey);
    const testBooking = await book(stack.baseUrl, partner.testKey);
    expect(sandboxWarnings()).toEqual([]);

    const first = await book(stack.baseUrl, partner.liveKey);
    const second = await book(stack.baseUrl, partner.liveKey);
    expect(sandboxWarnings()).toEqual([
      expect.objectContaining({ level: 'warn', deliveryId: first.id, partnerId: partner.partnerId }),
      expect.objectContaining({ level: 'warn', deliveryId: second.id, partnerId: partner.partnerId }),
    ]);

    // No live delivery is left waiting for a rider once the test is over (the robo rider ends the test one).
    for (const id of [first.id, second.id]) {
      expect((await api(stack.baseUrl, partner.liveKey).post(`/partner/deliveries/${id}/cancel`)).status).toBe(200);
    }
    expect(testBooking.status).toBe('pending');
  });
});
