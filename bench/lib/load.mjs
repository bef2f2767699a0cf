// One load phase with autocannon on loopback: a short warm-up that is thrown away, then the
// measured run. Reports throughput, latency percentiles and every kind of failure.
import autocannon from 'autocannon';
import { costPerRequest } from './cpu.mjs';

function run(options) {
  return new Promise((resolve, reject) => {
    autocannon(options, (error, result) => (error ? reject(error) : resolve(result)));
  });
}

/**
 * `target`: { url, method?, headers?, body?, requests? } as autocannon takes them. `cpu` starts
 * a CPU account of the stack (lib/cpu.mjs), kept for the measured run only.
 * Returns { rps, p50, p90, p99, errors, requests, cpu, cpuMsPerRequest }; latencies in ms.
 */
export async function load(target, { connections, seconds, warmupSeconds = 1, cpu }) {
  const options = { ...target, connections, timeout: 10 };
  if (warmupSeconds > 0) await run({ ...options, duration: warmupSeconds });
  const account = cpu?.();
  const result = await run({ ...options, duration: seconds });
  const shares = account?.stop() ?? null;
  const failed = result.errors + result.timeouts + result.non2xx;
  const elapsed = result.duration || seconds;
  return {
    rps: result['2xx'] / elapsed,
    p50: result.latency.p50,
    p90: result.latency.p90,
    p99: result.latency.p99,
    errors: failed,
    requests: result['2xx'] + failed,
    statusCodes: result.statusCodeStats,
    cpu: shares,
    cpuMsPerRequest: shares ? costPerRequest(shares, elapsed, result['2xx'] + failed) : null,
  };
}
