import { execFile, spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';
import type { BookingRequest } from '../../clients/typescript/src';
import { bookingBody, registerAccount } from './bookings';
import { exited } from './child-process';
import { freePort } from './free-port';
import { eventually } from './http';
import { makePartner, partnerClient } from './partners';
import type { TestStack } from './stack';
import { startTestReceiver } from './webhook-test-receiver';

/** The repository's root: the PHP and Python clients and their examples are run from their files there. */
export const root = path.resolve(__dirname, '../..');

/** The interpreters `npm test` prepared (scripts/lib/prepare.mjs), or the PATH's. */
export const PHP = process.env.PHP_PATH ?? 'php';
export const PYTHON = process.env.PYTHON_PATH ?? 'python3';
/** What a Python program needs to import the client without installing it. */
export const PYTHON_ENV = { PYTHONPATH: path.join(root, 'clients', 'python', 'src'), PYTHONDONTWRITEBYTECODE: '1' };

export interface ProgramRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs a program to its end and gives what it printed; it never throws for a non-zero exit. */
export function runProgram(command: string, args: string[], env: Record<string, string> = {}, timeoutMs = 30_000): Promise<ProgramRun> {
  return new Promise((resolve) => {
    execFile(command, args, { cwd: root, env: { ...process.env, ...env }, timeout: timeoutMs }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

/** A program that serves HTTP on a port of its own (a webhook receiver), once it accepts connections. */
export interface ProgramServer {
  url: string;
  /** What it has written to stdout and stderr so far. */
  output(): string;
  stop(): Promise<void>;
}

/** Starts `command args` with PORT (and `port` passed to `args`) set, and waits until the port answers. */
export async function startProgramServer(command: string, args: (port: number) => string[], env: Record<string, string> = {}): Promise<ProgramServer> {
  const port = await freePort();
  const child: ChildProcess = spawn(command, args(port), { cwd: root, env: { ...process.env, ...env, PORT: String(port) }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited(child);
  };
  try {
    await eventually(
      () =>
        new Promise<boolean>((resolve) => {
          if (child.exitCode !== null) throw new Error(`${command} exited: ${output}`);
          const socket = net.connect(port, '127.0.0.1', () => resolve(Boolean(socket.end())));
          socket.on('error', () => resolve(false));
        }),
      10_000,
      `${command} to listen on ${port}`,
    );
  } catch (error) {
    await stop();
    throw error;
  }
  return { url: `http://127.0.0.1:${port}/webhooks/deliveries`, output: () => output, stop };
}

/** A callback exactly as the service sent it: the raw bytes, their signature header, and the secret. */
export interface RealCallback {
  raw: Buffer;
  signature: string;
  secret: string;
  deliveryId: string;
}

/**
 * Makes the service send a real callback: a test partner subscribed to a receiver books a manual
 * sandbox delivery and cancels it, and the receiver keeps the `delivery.cancelled` request byte
 * for byte.
 */
export async function realCallback(stack: TestStack): Promise<RealCallback> {
  const partner = await makePartner(stack.orm);
  await registerAccount(stack.baseUrl, partner.testKey);
  const receiver = await startTestReceiver();
  try {
    const secret = await receiver.subscribe(stack.baseUrl, partner.testKey);
    const client = partnerClient(stack.baseUrl, partner.testKey);
    // Recipient names with characters a re-serialiser would escape, so only the raw bytes verify.
    const booked = await client.deliveries.create(bookingBody({ recipient_name: 'Ama Serwaa — Osu/Accra' }) as BookingRequest, { sandboxRider: 'manual' });
    await client.deliveries.cancel(booked.id);
    const arrival = await eventually(
      async () => receiver.arrivalsFor(booked.id).find((a) => a.body.event === 'delivery.cancelled'),
      15_000,
      'the delivery.cancelled callback',
    );
    return { raw: arrival.raw, signature: String(arrival.headers['x-service-signature']), secret, deliveryId: booked.id };
  } finally {
    await receiver.close();
  }
}

/** POSTs bytes to a receiver as the service would, and gives its answer's status. */
export async function postCallback(url: string, raw: Buffer, signature: string): Promise<number> {
  const response = await fetch(url, { method: 'POST', headers: { 'Content-Type': 'application/json', 'X-Service-Signature': signature }, body: raw });
  await response.arrayBuffer();
  return response.status;
}

/** The same bytes with one changed: a digit of the delivery's fare, as a tamperer would. */
export function tampered(raw: Buffer): Buffer {
  const copy = Buffer.from(raw);
  const at = copy.indexOf('"total_fare":') + '"total_fare":'.length;
  copy[at] = copy[at] === 0x39 ? 0x38 : copy[at]! + 1;
  return copy;
}
