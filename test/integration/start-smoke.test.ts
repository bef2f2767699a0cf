import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { confirmLinkIn, dashboardClient, mailsTo, pathOf, uniqueEmail } from '../helpers/dashboard';
import { freePort } from '../helpers/free-port';
import { ownDatabase, type OwnDatabase } from '../helpers/own-database';
import { makePartner } from '../helpers/partners';

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
 * what it starts), on `database`, with ports of its own.
 */
async function startEnv(database: OwnDatabase, dataDir: string) {
  const { NODE_ENV: _jestSetsIt, ...terminal } = process.env;
  const [apiPort, temporalPort, uiPort] = [await freePort(), await freePort(), await freePort()];
  return {
    apiPort,
    temporalPort,
    uiPort,
    env: {
      ...terminal,
      DATABASE_URL: database.url,
      TEMPORAL_CLI: process.env.TEST_TEMPORAL_CLI,
      STACK_DATA_DIR: dataDir,
      PORT: String(apiPort),
      TEMPORAL_PORT: String(temporalPort),
      TEMPORAL_UI_PORT: String(uiPort),
      LOG_LEVEL: 'warn',
    },
  };
}

describe('npm start', () => {
  let child: ChildProcess | undefined;
  // A database of its own: the seed refuses one holding live keys, as the suites' shared ones do.
  let database: OwnDatabase | undefined;
  const dataDir = mkdtempSync(path.join(tmpdir(), 'stack-'));
  afterAll(async () => {
    if (child && child.exitCode === null) {
      const exited = new Promise((resolve) => child?.once('exit', resolve));
      child.kill('SIGINT');
      await exited;
    }
    await database?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('brings the stack up, prints a working key, refuses a second start and stops on Ctrl-C', async () => {
    database = await ownDatabase('start_smoke');
    const { apiPort, temporalPort, uiPort, env } = await startEnv(database, dataDir);
    child = spawn('node', ['scripts/start.mjs'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    const output = await waitForOutput(child, /Ctrl-C stops everything/, 150_000);
    const key = /Test API key\s+(sk_test_\S+)/.exec(output)?.[1];
    expect(key).toBeDefined();
    expect(output).toContain(`http://localhost:${uiPort}`);

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

    // The README's first-time partner path: sign up, and the confirmation email is written in this
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

    const exited = new Promise<number | null>((resolve) => child?.once('exit', resolve));
    child.kill('SIGINT');
    await exited;
    await expect(fetch(`${base}/healthz`)).rejects.toThrow();
    // Nothing it started is left behind: the Temporal dev server's port is free again.
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(await portOpen(temporalPort)).toBe(false);
  }, 200_000);

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
