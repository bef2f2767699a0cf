// What one request of a kind costs a server, alone: each kind is sent at a steady rate for a few
// seconds while nothing else is, to the API and then to its floor (a bare server doing the least
// the request needs), and each server's CPU over that span is divided by the requests it answered.
// The API's idle CPU (timers, live workflows' work) is measured first and taken off.
import { accountCpu } from './cpu.mjs';
import { onSchedule } from './open-loop.mjs';
import { sleep } from './client.mjs';

/** CPU ms per request of the process `pid` while `send(n)` runs `rate` times a second for `seconds`. */
async function costOf(pid, send, { rate, seconds, idleCoresOf }) {
  const account = accountCpu({ server: pid });
  const started = performance.now();
  const answers = [];
  let sent = 0;
  await new Promise((resolve) => {
    const cancel = onSchedule(1000 / rate, 0, () => {
      answers.push(send(sent++));
      if (sent >= rate * seconds) {
        cancel();
        resolve();
      }
    }, () => false);
  });
  const statuses = await Promise.all(answers);
  const { server } = account.stop();
  const spanMs = performance.now() - started;
  const cpuMs = Math.max(0, server - idleCoresOf(pid)) * spanMs;
  return { msPerRequest: cpuMs / statuses.length, requests: statuses.length, failed: statuses.filter((s) => s.bad).length };
}

/** A process's CPU in cores over `seconds` with nothing sent to it. */
async function idleCores(pid, seconds) {
  const account = accountCpu({ server: pid });
  await sleep(seconds * 1000);
  return account.stop().server;
}

/**
 * `kinds`: [{ name, api: (n) => Promise<{ bad }>, floor: (n) => Promise<{ bad }> }]; `pids`: the API's
 * and the floor's. Each kind's first `warmup` requests go to both before the measure, unmeasured,
 * so the connections of the callers it cycles through are open on both sides. Returns, per kind,
 * the API's and the floor's CPU ms per request and their ratio.
 */
export async function unitCosts(kinds, pids, { rate = 200, seconds = 10, idleSeconds = 3, warmup = 0 } = {}) {
  for (const kind of kinds) {
    for (let n = 0; n < warmup; n += 1) await Promise.all([kind.api(n), kind.floor(n)]);
  }
  const idle = { [pids.api]: await idleCores(pids.api, idleSeconds), [pids.floor]: await idleCores(pids.floor, idleSeconds) };
  const idleCoresOf = (pid) => idle[pid] ?? 0;
  const out = {};
  for (const kind of kinds) {
    const api = await costOf(pids.api, kind.api, { rate, seconds, idleCoresOf });
    const floor = await costOf(pids.floor, kind.floor, { rate, seconds, idleCoresOf });
    out[kind.name] = {
      apiMs: api.msPerRequest,
      floorMs: floor.msPerRequest,
      ratio: floor.msPerRequest > 0 ? api.msPerRequest / floor.msPerRequest : null,
      requests: api.requests,
      failed: api.failed + floor.failed,
      floor: kind.floorName,
    };
  }
  return out;
}
