import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ensureHaproxy, ensureNginx } from '../../scripts/lib/prepare.mjs';
import { backendStatus, haproxyConfig } from '../../scripts/lib/topology.mjs';
import { freePort } from './free-port';

/** One request as a stand-in API process received it. */
export interface ReceivedRequest {
  method: string;
  url: string;
  body: string;
  idempotencyKey: string | undefined;
}

/** A stand-in for one API process behind a balancer: it answers, or it dies under every request. */
export interface StandInApi {
  name: string;
  port: number;
  received: ReceivedRequest[];
  /** TCP connections that have carried a request other than a health check, so far. */
  readonly connections: number;
  close(): Promise<void>;
}

/**
 * A stand-in API process on loopback. Its /readyz always answers 200, as a process killed a
 * moment ago still looks ready to a balancer that has not checked it since. With `dies`, every
 * other request is read whole and then its connection is cut without an answer: what a client
 * meets when the process is killed with the request in hand.
 */
export async function startStandInApi(name: string, { dies }: { dies: boolean }): Promise<StandInApi> {
  const received: ReceivedRequest[] = [];
  const carrying = new WeakSet<object>();
  let connections = 0;
  const server = createServer((req, res) => {
    if (req.url === '/readyz') return void res.end('ready');
    if (!carrying.has(req.socket)) {
      carrying.add(req.socket);
      connections += 1;
    }
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      received.push({ method: req.method ?? '', url: req.url ?? '', body, idempotencyKey: req.headers['idempotency-key'] as string | undefined });
      if (dies) req.socket.destroy();
      else res.writeHead(req.method === 'POST' ? 201 : 200, { 'content-type': 'application/json' }).end(JSON.stringify({ answeredBy: name }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    name,
    port: (server.address() as AddressInfo).port,
    received,
    get connections() {
      return connections;
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** A balancer running in front of stand-in APIs. */
export interface Balancer {
  baseUrl: string;
  stop(): Promise<void>;
}

function runDir(name: string): string {
  const parent = process.env.TEST_RUN_DIR ?? tmpdir();
  mkdirSync(parent, { recursive: true });
  return mkdtempSync(path.join(parent, `${name}-`));
}

async function stopChild(child: ChildProcess, signal: NodeJS.Signals): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill(signal);
  await exited;
}

async function waitFor(check: () => Promise<boolean>, what: string, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check().catch(() => false))) {
    if (Date.now() > deadline) throw new Error(`${what} within ${timeoutMs / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * HAProxy with the topology's own configuration (scripts/lib/topology.mjs), in front of `apis`;
 * ready once its checks have every one UP.
 */
export async function startTopologyHaproxy(apis: StandInApi[]): Promise<Balancer> {
  const dir = runDir('haproxy');
  const port = await freePort();
  const statsUrl = `http://127.0.0.1:${await freePort()}/`;
  const configFile = path.join(dir, 'haproxy.cfg');
  writeFileSync(configFile, haproxyConfig({ port, statsPort: Number(new URL(statsUrl).port), apis }));
  const haproxy = spawn(ensureHaproxy(), ['-db', '-f', configFile], { stdio: 'ignore' });
  const stop = () => stopChild(haproxy, 'SIGTERM');
  await waitFor(async () => {
    const status = await backendStatus(statsUrl);
    return apis.every((api) => status[api.name] === 'UP');
  }, 'HAProxy did not see every stand-in UP').catch(async (error: Error) => {
    await stop();
    throw error;
  });
  return { baseUrl: `http://127.0.0.1:${port}`, stop };
}

/**
 * nginx with the compose stack's configuration (temporal-docker/nginx.conf) in front of `apis`.
 * Only what Docker provides is stood in for: the upstream `api` holds the stand-ins instead of
 * Docker's DNS answer with every replica (`resolve`, which nginx has from 1.27.3; each kept in
 * rotation whatever fails, as in the moment before anything notices a replica died), one worker (so requests take turns), a free
 * port for 80, and files under the test's folder. Every other line runs as written.
 */
export async function startComposeNginx(apis: StandInApi[]): Promise<Balancer> {
  const dir = runDir('nginx');
  const port = await freePort();
  const composeConfig = readFileSync(path.resolve(__dirname, '../../temporal-docker/nginx.conf'), 'utf8');
  const replace = (text: string, from: RegExp, to: string) => {
    if (!from.test(text)) throw new Error(`temporal-docker/nginx.conf no longer has ${from}: update startComposeNginx`);
    return text.replace(from, to);
  };
  let config = replace(composeConfig, /^worker_processes auto;$/m, 'worker_processes 1;');
  config = replace(config, /^(\s*)listen 80;$/m, `$1listen 127.0.0.1:${port};`);
  config = replace(config, /^(\s*)server api:3000 resolve;$/m, apis.map((api) => `$1server 127.0.0.1:${api.port} max_fails=0;`).join('\n'));
  config = replace(
    config,
    /^http \{$/m,
    ['http {', '  access_log off;', `  client_body_temp_path ${dir}/body;`, `  proxy_temp_path ${dir}/proxy;`].join('\n'),
  );
  const configFile = path.join(dir, 'nginx.conf');
  writeFileSync(configFile, config);
  const args = ['-p', dir, '-c', configFile, '-g', `daemon off; pid ${dir}/nginx.pid; error_log ${dir}/error.log;`];
  const nginx = ensureNginx();
  const checked = spawnSync(nginx, ['-t', ...args], { encoding: 'utf8' });
  if (checked.status !== 0) throw new Error(`nginx refused ${configFile}:\n${checked.stderr}`);
  const child = spawn(nginx, args, { stdio: 'ignore' });
  // SIGTERM: the master takes its worker down with it (SIGKILL would leave the worker behind).
  const stop = () => stopChild(child, 'SIGTERM');
  const baseUrl = `http://127.0.0.1:${port}`;
  await waitFor(async () => (await fetch(`${baseUrl}/readyz`)).ok, 'nginx did not answer').catch(async (error: Error) => {
    await stop();
    throw error;
  });
  return { baseUrl, stop };
}
