/** What the fault tests share: a partner's webhook receiver, child processes, riders that retry. */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createWriteStream, mkdirSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { Client } from '@temporalio/client';
import type { Orm } from '../../db/orm';
import { FAST_TIMINGS } from '../helpers/stack';
import { ourProgram } from '../helpers/child-process';
import { api } from '../helpers/http';
import { deliveriesByIds, statusTally } from '../helpers/db-deliveries';

export const ROOT = path.resolve(__dirname, '../..');
export const LOG_DIR = path.join(ROOT, '.data', 'test', 'fault-logs');

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export interface ReceivedEvent {
  eventId: string;
  event: string;
  deliveryId: string;
}

/**
 * A partner's callback endpoint on a loopback port. `down()` closes the port (connections are
 * refused, as when the partner's server is off); `up()` opens it again on the same port.
 */
export class WebhookReceiver {
  readonly received: ReceivedEvent[] = [];
  /** Delay before answering, to make a callback slow. */
  delayMs = 0;
  /** Callbacks arrived and not yet answered. */
  inFlight = 0;
  private server: Server | null = null;
  private port = 0;

  get url(): string {
    return `http://127.0.0.1:${this.port}/hooks`;
  }

  async up(): Promise<void> {
    const server = createServer((req, res) => {
      this.inFlight += 1;
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { event: string; delivery_id: string };
        const answer = () => {
          this.inFlight -= 1;
          this.received.push({ eventId: String(req.headers['x-service-event-id']), event: body.event, deliveryId: body.delivery_id });
          res.writeHead(200).end('ok');
        };
        if (this.delayMs > 0) setTimeout(answer, this.delayMs);
        else answer();
      });
    });
    await new Promise<void>((resolve) => server.listen(this.port, '127.0.0.1', resolve));
    this.port = (server.address() as AddressInfo).port;
    this.server = server;
  }

  async down(): Promise<void> {
    const server = this.server;
    this.server = null;
    if (!server) return;
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }

  distinctEventIds(): Set<string> {
    return new Set(this.received.map((r) => r.eventId));
  }
}

/** A process of ours (one of its entry files), its output kept in a log file for when a test fails. */
export interface ChildHandle {
  child: ChildProcess;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  logFile: string;
  /** Sends the signal and waits for the exit; with `withinMs`, fails (with the log's end) if it takes longer. */
  stop(signal?: NodeJS.Signals, withinMs?: number): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

export function spawnProgram(entry: string, env: Record<string, string>, name: string): ChildHandle {
  mkdirSync(LOG_DIR, { recursive: true });
  const logFile = path.join(LOG_DIR, `${name}-${process.pid}-${Date.now()}.log`);
  const { command, args, cwd } = ourProgram(entry);
  // Its own process group, so SIGKILL also reaches anything the program started.
  const child = spawn(command, args, { cwd, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  return handleFor(child, logFile, (signal) =>
    signal === 'SIGKILL' ? process.kill(-(child.pid as number), 'SIGKILL') : child.kill(signal),
  );
}

/** Keeps a child's output in its log file and gives it one way to stop and be waited for. */
function handleFor(child: ChildProcess, logFile: string, kill: (signal: NodeJS.Signals) => void): ChildHandle {
  const log = createWriteStream(logFile, { flags: 'a' });
  child.stdout?.pipe(log);
  child.stderr?.pipe(log);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  return {
    child,
    exited,
    logFile,
    async stop(signal: NodeJS.Signals = 'SIGTERM', withinMs?: number) {
      if (child.exitCode === null && child.signalCode === null) kill(signal);
      if (withinMs === undefined) return exited;
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<never>((_, reject) => {
        timer = setTimeout(() => {
          const end = readFileSync(logFile, 'utf8').slice(-3_000);
          reject(new Error(`pid ${child.pid} still running ${withinMs} ms after ${signal}; the end of ${logFile}:\n${end}`));
        }, withinMs);
      });
      try {
        return await Promise.race([exited, late]);
      } finally {
        clearTimeout(timer);
      }
    },
  };
}

/** The worker as its own process, like `npm run worker`, on the given task queue. */
export function spawnWorker(taskQueue: string, env: Record<string, string> = {}): ChildHandle {
  return spawnProgram(
    'workers/main.ts',
    {
      NODE_ENV: 'test',
      LOG_LEVEL: 'warn',
      DATABASE_URL: process.env.TEST_DATABASE_URL as string,
      TEMPORAL_ADDRESS: process.env.TEST_TEMPORAL_ADDRESS as string,
      TEMPORAL_TASK_QUEUE: taskQueue,
      WORKFLOW_BUNDLE: process.env.WORKFLOW_BUNDLE as string,
      DATABASE_POOL_MAX: '8',
      ...FAST_TIMINGS,
      ...env,
    },
    'worker',
  );
}

/** A Temporal dev server of a test's own, keeping its state in a file so it survives a restart. */
export function startTemporalServer(port: number, dbFile: string): ChildHandle {
  const cli = process.env.TEST_TEMPORAL_CLI;
  if (!cli) throw new Error('TEST_TEMPORAL_CLI is not set: run through `npm test`');
  mkdirSync(LOG_DIR, { recursive: true });
  const logFile = path.join(LOG_DIR, `temporal-${port}.log`);
  const args = ['server', 'start-dev', '--headless', '--ip', '127.0.0.1', '--port', String(port), '--db-filename', dbFile, '--log-level', 'warn'];
  // As scripts/lib/stack.mjs registers them (SEARCH_ATTRIBUTES) for every other dev server.
  for (const attribute of ['DeliveryStatus=Keyword', 'PaymentStatus=Keyword', 'PartnerId=Keyword', 'DeliveryReference=Keyword', 'NeedsAttention=Bool']) {
    args.push('--search-attribute', attribute);
  }
  const child = spawn(cli, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  return handleFor(child, logFile, (signal) => child.kill(signal));
}

export async function waitForTemporal(port: number, timeoutMs = 60_000): Promise<void> {
  const cli = process.env.TEST_TEMPORAL_CLI as string;
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const health = spawnSync(cli, ['operator', 'cluster', 'health', '--address', `127.0.0.1:${port}`], { encoding: 'utf8' });
    if (health.status === 0 && /SERVING/.test(health.stdout)) return;
    await sleep(250);
  }
  throw new Error(`Temporal on port ${port} did not come up`);
}

const ORDER = ['pending', 'accepted', 'picked_up', 'in_transit', 'delivered'];

/**
 * One rider app walking one job to `delivered`, as a real app would: every step is retried
 * until it is acknowledged, or until the partner's view shows it already happened (an answer
 * lost in a crash). Bounded by `deadline`.
 */
export async function driveRider(opts: {
  baseUrl: string;
  riderToken: string;
  partnerKey: string;
  deliveryId: string;
  deadline: number;
}): Promise<number> {
  const rider = api(opts.baseUrl, opts.riderToken);
  const partner = api(opts.baseUrl, opts.partnerKey);
  let retries = 0;
  const steps: [string, string][] = [
    ['accept', 'accepted'],
    ['pickup', 'picked_up'],
    ['depart', 'in_transit'],
    ['deliver', 'delivered'],
  ];
  for (const [action, reaches] of steps) {
    for (;;) {
      if (Date.now() > opts.deadline) throw new Error(`rider gave up on ${opts.deliveryId} at ${action}`);
      const answer = await rider
        .post(`/rider/deliveries/${opts.deliveryId}/${action}`, undefined, {})
        .catch(() => ({ status: 0, body: null }));
      if (answer.status === 200) break;
      const seen = await partner.get(`/partner/deliveries/${opts.deliveryId}`).catch(() => null);
      if (seen?.status === 200 && ORDER.indexOf(seen.body.status as string) >= ORDER.indexOf(reaches)) break;
      retries += 1;
      await sleep(250);
    }
  }
  return retries;
}

/** For a failing fault test: where each delivery stands and the last activity failures of one workflow. */
export async function describeStuck(orm: Orm, temporal: Client, ids: string[]): Promise<string> {
  const lines = await statusTally(orm, ids);
  const stuck = (await deliveriesByIds(orm, ids)).find((d) => d.status !== 'delivered' || d.payment_status !== 'paid');
  if (stuck) {
    lines.push(`stuck ${stuck.id}:`);
    for (const workflowId of [`delivery-${stuck.id}`, `robo-rider-${stuck.id}`]) {
      const handle = temporal.workflow.getHandle(workflowId);
      const described = await handle.describe().catch(() => null);
      const history = await handle.fetchHistory().catch(() => null);
      const failures = (history?.events ?? [])
        .map((e) => e.activityTaskFailedEventAttributes?.failure ?? e.activityTaskTimedOutEventAttributes?.failure)
        .filter(Boolean)
        .slice(-3)
        .map((f) => `  ${f?.message} ${f?.cause?.message ?? ''} ${f?.stackTrace?.split('\n').slice(0, 2).join(' | ') ?? ''}`);
      lines.push(`${workflowId}: ${described?.status.name ?? 'not found'}`, ...failures);
    }
  }
  return lines.join('\n');
}

/** The API as its own process, like `npm run api`, on a loopback port. */
export function spawnApi(port: number, env: Record<string, string> = {}): ChildHandle {
  return spawnProgram(
    'api/main.ts',
    {
      NODE_ENV: 'test',
      LOG_LEVEL: 'warn',
      PORT: String(port),
      DATABASE_URL: process.env.TEST_DATABASE_URL as string,
      TEMPORAL_ADDRESS: process.env.TEST_TEMPORAL_ADDRESS as string,
      DATABASE_POOL_MAX: '8',
      // The fault tests poll every delivery every 50 ms until it settles; at 600 a minute the
      // key's budget could run out on the last read (and a rider's on its retries). Rate limits are rate-limit.test.ts's subject.
      RATE_LIMIT_PARTNER_PER_MINUTE: '1000000',
      RATE_LIMIT_PARTNER_TEST_PER_MINUTE: '1000000',
      RATE_LIMIT_RIDER_PER_MINUTE: '1000000',
      ...FAST_TIMINGS,
      ...env,
    },
    'api',
  );
}

export async function waitForHttp(url: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const ok = await fetch(url).then((r) => r.status < 500, () => false);
    if (ok) return;
    await sleep(200);
  }
  throw new Error(`${url} did not answer within ${timeoutMs / 1000} s`);
}
