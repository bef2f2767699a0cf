// Open-loop load: requests leave on a fixed schedule, whether or not earlier ones were answered,
// as phones and pollers in a city do. Each request's latency counts from when it was due, so a
// server that falls behind shows it in the figures instead of slowing the load down.
import http from 'node:http';
import { percentile } from './stats.mjs';

/**
 * A keep-alive HTTP client for many simulated callers on one process. Requests beyond
 * `maxSockets` wait in the agent's queue; that wait is part of their latency, as a phone's
 * would be on a slow network.
 */
export function httpClient(baseUrl, { maxSockets = 128, prefix = '/api/v1', socketsPerAddress = 3 } = {}) {
  const url = new URL(baseUrl);
  const agent = new http.Agent({ keepAlive: true, maxSockets, keepAliveMsecs: 10_000 });
  // A caller with an address of its own (a phone, a recipient's page) holds a few connections, as
  // a phone does; thousands of them must stay within the processes' open-file limits.
  const addressed = new http.Agent({ keepAlive: true, maxSockets: socketsPerAddress, maxFreeSockets: socketsPerAddress, keepAliveMsecs: 10_000 });
  /**
   * `body`: an object (sent as JSON), or { raw: Buffer, type } as it is; `from`: the local
   * address to send from (the agent keeps connections apart per address). Resolves with
   * { status, text, json() } and never rejects: a network error is status 0.
   */
  function request(method, path, { token, body, headers = {}, from } = {}) {
    let payload;
    const sent = { ...headers };
    if (token) sent.Authorization = `Bearer ${token}`;
    if (body?.raw) {
      payload = body.raw;
      sent['Content-Type'] = body.type;
    } else if (body !== undefined) {
      payload = Buffer.from(JSON.stringify(body));
      sent['Content-Type'] = 'application/json';
    }
    if (payload) sent['Content-Length'] = String(payload.length);
    return new Promise((resolve) => {
      const req = http.request({ host: url.hostname, port: url.port, path: `${prefix}${path}`, method, headers: sent, ...(from ? { agent: addressed, localAddress: from } : { agent }) }, (res) => {
        const chunks = [];
        res.on('data', (chunk) => chunks.push(chunk));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          resolve({ status: res.statusCode ?? 0, text, json: () => (text ? JSON.parse(text) : null) });
        });
        res.on('error', (error) => resolve({ status: 0, text: error.message, json: () => null }));
      });
      req.setTimeout(30_000, () => req.destroy(new Error('timed out after 30 s')));
      req.on('error', (error) => resolve({ status: 0, text: error.message, json: () => null }));
      req.end(payload);
    });
  }
  return {
    request,
    close: () => {
      agent.destroy();
      addressed.destroy();
    },
  };
}

/**
 * Latency samples and failures per endpoint, and per minute of the run, so a report can say
 * whether the tail grew as the run went on. Samples are kept only while `recording` is on.
 */
export class EndpointStats {
  constructor() {
    this.byEndpoint = new Map();
    this.recording = false;
    this.from = 0;
    /** How late requests left the load generator: when this grows, the generator, not the server, fell behind. */
    this.sendLags = [];
  }

  start() {
    this.recording = true;
    this.from = performance.now();
  }

  stop() {
    this.recording = false;
    this.to = performance.now();
  }

  /** One answer: `ok` when its status was the one expected. */
  record(endpoint, latencyMs, ok, status) {
    if (!this.recording) return;
    let entry = this.byEndpoint.get(endpoint);
    if (!entry) this.byEndpoint.set(endpoint, (entry = { latencies: [], errors: 0, statuses: {}, minutes: [] }));
    entry.latencies.push(latencyMs);
    const minute = Math.floor((performance.now() - this.from) / 60_000);
    (entry.minutes[minute] ??= []).push(latencyMs);
    if (!ok) {
      entry.errors += 1;
      entry.statuses[status] = (entry.statuses[status] ?? 0) + 1;
    }
  }

  recordSendLag(ms) {
    if (this.recording) this.sendLags.push(ms);
  }

  sendLag() {
    return { p50: percentile(this.sendLags, 50), p99: percentile(this.sendLags, 99) };
  }

  summary() {
    const seconds = ((this.to ?? performance.now()) - this.from) / 1000;
    return Object.fromEntries(
      [...this.byEndpoint].map(([endpoint, e]) => [
        endpoint,
        {
          count: e.latencies.length,
          rps: e.latencies.length / seconds,
          p50: percentile(e.latencies, 50),
          p99: percentile(e.latencies, 99),
          max: e.latencies.reduce((a, b) => Math.max(a, b), 0),
          errors: e.errors,
          statuses: e.statuses,
          p99ByMinute: e.minutes.map((m) => (m ? percentile(m, 99) : null)),
        },
      ]),
    );
  }
}

/**
 * Calls `fire(dueAt)` every `everyMs`, first at `offsetMs`, until `stopped()` says so; `dueAt`
 * is the scheduled moment (performance.now()), which the request's latency counts from. One
 * timer per caller keeps each caller's own rhythm, as each phone keeps its own.
 */
export function onSchedule(everyMs, offsetMs, fire, stopped) {
  let due = performance.now() + offsetMs;
  let cancelled = false;
  let timer;
  const tick = () => {
    if (cancelled || stopped()) return;
    const dueAt = due;
    due += everyMs;
    fire(dueAt);
    // `fire` may have cancelled the schedule itself (the ramp's last booking does).
    if (!cancelled) timer = setTimeout(tick, Math.max(0, due - performance.now()));
  };
  timer = setTimeout(tick, offsetMs);
  return () => {
    cancelled = true;
    clearTimeout(timer);
  };
}

/** Sends one request and records it against `endpoint`, timed from `dueAt`; resolves with the answer. */
export async function timed(stats, endpoint, dueAt, send, expected = [200]) {
  stats.recordSendLag(performance.now() - dueAt);
  const answer = await send();
  stats.record(endpoint, performance.now() - dueAt, expected.includes(answer.status), answer.status);
  return answer;
}
