import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { confirmLinkIn, dashboardClient, mailsTo, pathOf, uniqueEmail } from '../helpers/dashboard';
import { freePort } from '../helpers/free-port';
import { ownDatabase, type OwnDatabase } from '../helpers/own-database';
import { makePartner } from '../helpers/partners';
import { initOrm } from '../../db/orm';

function portOpen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ port, host: '127.0.0.1' });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** Resolves once nothing listens on `port` any more. */
async function waitWhileOpen(port: number): Promise<void> {
  while (await portOpen(port)) await new Promise((resolve) => setTimeout(resolve, 50));
}

function waitForOutput(child: ChildProcess, pattern: RegExp, timeoutMs: number): Promise<string> {
  return new Promise((resolve, reject) => {
    let output = '';
    const timer = setTimeout(() => reject(new Error(`no ${pattern} within ${timeoutMs} ms:\n${output}`)), timeoutMs);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (pattern.test(output)) {
        clearTimeout(timer);
        resolve(output);
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`npm start exited (${code}):\n${output}`));
    });
  });
}

/**
 * What `npm start` is started with from a terminal: no NODE_ENV (it sets development itself for
 * what it starts), with ports of its own, on `database` or (null) its own embedded PostgreSQL.
 */
async function startEnv(database: OwnDatabase | null, dataDir: string) {
  const { NODE_ENV: _jestSetsIt, DATABASE_URL: _notNamed, ...terminal } = process.env;
  const [apiPort, temporalPort, uiPort, pgPort] = [await freePort(), await freePort(), await freePort(), await freePort()];
  return {
    apiPort,
    temporalPort,
    uiPort,
    env: {
      ...terminal,
      ...(database ? { DATABASE_URL: database.url } : { PG_PORT: String(pgPort) }),
      TEMPORAL_CLI: process.env.TEST_TEMPORAL_CLI,
      STACK_DATA_DIR: dataDir,
      PORT: String(apiPort),
      TEMPORAL_PORT: String(temporalPort),
      TEMPORAL_UI_PORT: String(uiPort),
      LOG_LEVEL: 'warn',
    },
  };
}

/** `npm start` in the background, and its output once it says the stack is up. */
async function startStack(env: NodeJS.ProcessEnv): Promise<{ child: ChildProcess; output: string }> {
  const child = spawn('node', ['scripts/start.mjs'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  return { child, output: await waitForOutput(child, /Ctrl-C stops everything/, 150_000) };
}

function exitOf(child: ChildProcess): Promise<number | null> {
  return child.exitCode !== null || child.signalCode !== null ? Promise.resolve(child.exitCode) : new Promise((resolve) => child.once('exit', resolve));
}

/** The stack as its data folder's stack.json names it. */
function stackFileIn(dataDir: string): { pid: number; databaseUrl: string; processes: { name: string; pid: number }[] } {
  return JSON.parse(readFileSync(path.join(dataDir, 'stack.json'), 'utf8'));
}

describe('npm start', () => {
  const children: ChildProcess[] = [];
  const dataDir = mkdtempSync(path.join(tmpdir(), 'stack-'));
  afterAll(async () => {
    for (const child of children.filter((c) => c.exitCode === null && c.signalCode === null)) {
      const exited = exitOf(child);
      child.kill('SIGINT');
      await exited;
    }
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('brings the stack up, comes back after kill -9 with a live key in its database, and starts again at once after a stop', async () => {
    const { apiPort, temporalPort, uiPort, env } = await startEnv(null, dataDir);
    const first = await startStack(env);
    children.push(first.child);
    const key = /Test API key\s+(sk_test_\S+)/.exec(first.output)?.[1];
    expect(key).toBeDefined();
    expect(first.output).toContain(`http://localhost:${uiPort}`);

    const base = `http://127.0.0.1:${apiPort}`;
    expect((await fetch(`${base}/readyz`)).status).toBe(200);
    expect((await fetch(`${base}/docs/`)).status).toBe(200);
    const quote = await fetch(`${base}/api/v1/partner/quotes`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ pickup_lat: 5.5497, pickup_lng: -0.2096, dropoff_lat: 5.6052, dropoff_lng: -0.1668 }),
    });
    expect(quote.status).toBe(200);
    expect(((await quote.json()) as { total_fare: number }).total_fare).toBeGreaterThan(0);
    expect((await fetch(`http://127.0.0.1:${uiPort}/`)).status).toBe(200);

    // docs/features.md's first-time partner path: sign up, and the confirmation email is written in this
    // stack's own data folder (not the default one another stack may be using); its link's button
    // opens the keys page in the browser that signed up.
    const browser = dashboardClient(base);
    const email = uniqueEmail('smoke');
    const signedUp = await browser.signUp({ email, password: 'smoke-test-password', business_name: 'Smoke Ltd' });
    expect(signedUp.status).toBe(303);
    const [message] = await mailsTo(path.join(dataDir, 'mail'), email);
    expect(message).toBeDefined();
    const confirmed = await browser.confirm(pathOf(confirmLinkIn(message!)!));
    expect(confirmed.location).toBe('/dashboard/keys');

    const second = spawnSync('node', ['scripts/start.mjs'], { env, encoding: 'utf8', timeout: 60_000 });
    expect(second.status).toBe(1);
    expect(second.stdout).toMatch(/already running/);

    // A developer tries live mode in the embedded database, and the stack is killed outright: its
    // children are left running, and stack.json names them.
    const stack = stackFileIn(dataDir);
    expect(stack.processes.map((p) => p.name).sort()).toEqual(['API', 'Temporal dev server', 'embedded PostgreSQL', 'worker']);
    const orm = await initOrm(stack.databaseUrl, 1);
    try {
      await makePartner(orm);
    } finally {
      await orm.close();
    }
    const killed = exitOf(first.child);
    process.kill(stack.pid, 'SIGKILL');
    await killed;

    const back = await startStack(env);
    children.push(back.child);
    expect(back.output).toMatch(new RegExp(`The last stack \\(pid ${stack.pid}\\) ended without stopping what it started; stopped its `));
    expect(back.output).not.toContain('Refusing to seed');
    expect(back.output).toContain('Demo partner   demo@example.com (password: demo-password): no new key, this database holds 1 live-mode API key');
    expect((await fetch(`${base}/readyz`)).status).toBe(200);
    // The demo key printed first still works: nothing was lost with the kill.
    expect((await fetch(`${base}/api/v1/partner/deliveries`, { headers: { Authorization: `Bearer ${key}` } })).status).toBe(200);

    // Stopped, and started again the moment the API has gone: the new start waits for the old
    // one to finish stopping instead of calling it running.
    const stopped = exitOf(back.child);
    back.child.kill('SIGTERM');
    await waitWhileOpen(apiPort);
    const again = await startStack(env);
    children.push(again.child);
    expect(await stopped).toBe(0);
    expect(again.output).not.toMatch(/already running/);
    expect((await fetch(`${base}/readyz`)).status).toBe(200);

    const exited = exitOf(again.child);
    again.child.kill('SIGINT');
    await exited;
    await expect(fetch(`${base}/healthz`)).rejects.toThrow();
    // Nothing it started is left behind, and the stack file goes last.
    expect(await portOpen(temporalPort)).toBe(false);
    expect(existsSync(path.join(dataDir, 'stack.json'))).toBe(false);
  }, 400_000);

  it('stops at once, in one line, on a database holding a live key, and starts no API', async () => {
    const withLiveKey = await ownDatabase('start_live');
    const refusedDir = mkdtempSync(path.join(tmpdir(), 'stack-'));
    try {
      await makePartner(withLiveKey.orm);
      // Ports found free a moment ago may be taken by the other lane's processes before the start
      // binds them (its own, or the Temporal dev server's, which then exits at once); that start
      // stops on its own line, and is tried again on other ports.
      let apiPort = 0;
      let output = '';
      let status: number | null = null;
      for (let attempt = 1; attempt <= 3; attempt++) {
        const started = await startEnv(withLiveKey, refusedDir);
        const refused = spawnSync('node', ['scripts/start.mjs'], { env: started.env, encoding: 'utf8', timeout: 120_000 });
        ({ apiPort } = started);
        output = `${refused.stdout}${refused.stderr}`;
        status = refused.status;
        if (!/is already in use|Temporal dev server exited/.test(output)) break;
      }
      // The whole output on a failure, to say why.
      expect({ status, output }).toEqual({ status: 1, output: expect.stringContaining('Refusing to seed the demo partner') });
      const lines = output.split('\n');
      expect(lines.filter((line) => line.includes('Refusing to seed the demo partner'))).toEqual([
        expect.stringMatching(/Refusing to seed the demo partner \(demo@example\.com, .*it holds 1 live-mode API key, so real partners use it/),
      ]);
      expect(lines.some((line) => /Seeding the demo partner failed|Test API key/.test(line))).toBe(false);
      expect(await portOpen(apiPort)).toBe(false);
    } finally {
      await withLiveKey.drop();
      rmSync(refusedDir, { recursive: true, force: true });
    }
  }, 150_000);
});
