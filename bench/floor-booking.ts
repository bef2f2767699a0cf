import { randomUUID } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { Pool } from 'pg';

/**
 * The Temporal + Postgres floor for booking: `connections` loops, each inserting one row and
 * starting one empty workflow, as fast as they can, for a fixed time. Prints its figures as JSON.
 *
 * Environment: DATABASE_URL, TEMPORAL_ADDRESS, BENCH_FLOOR_TASK_QUEUE, BENCH_CONNECTIONS,
 * BENCH_SECONDS, BENCH_WARMUP_SECONDS, DATABASE_POOL_MAX.
 */
function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] as number;
}

async function main(): Promise<void> {
  const connections = Number(process.env.BENCH_CONNECTIONS ?? 16);
  const seconds = Number(process.env.BENCH_SECONDS ?? 10);
  const warmup = Number(process.env.BENCH_WARMUP_SECONDS ?? 1);
  const taskQueue = process.env.BENCH_FLOOR_TASK_QUEUE ?? 'bench-floor';
  // The same pool size the API runs with, so neither side has more database connections.
  const pool = new Pool({ connectionString: process.env.DATABASE_URL, max: Number(process.env.DATABASE_POOL_MAX ?? 10) });
  const connection = await Connection.connect({ address: process.env.TEMPORAL_ADDRESS as string });
  const client = new Client({ connection });
  await pool.query('create table if not exists bench_floor (id uuid primary key, created_at timestamptz not null default now())');

  const latencies: number[] = [];
  let errors = 0;
  let operations = 0;
  let measuring = false;
  let stop = false;
  const loop = async () => {
    while (!stop) {
      const started = performance.now();
      try {
        const id = randomUUID();
        await pool.query('insert into bench_floor (id) values ($1)', [id]);
        await client.workflow.start('emptyWorkflow', { taskQueue, workflowId: `floor-${id}` });
        operations += 1;
        if (measuring) latencies.push(performance.now() - started);
      } catch {
        if (measuring) errors += 1;
      }
    }
  };
  const cpuAtStart = process.cpuUsage();
  const startedAt = performance.now();
  const loops = Array.from({ length: connections }, loop);
  await new Promise((resolve) => setTimeout(resolve, warmup * 1000));
  measuring = true;
  const began = performance.now();
  await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
  measuring = false;
  const elapsed = (performance.now() - began) / 1000;
  stop = true;
  await Promise.all(loops);
  const cpu = process.cpuUsage(cpuAtStart);
  latencies.sort((a, b) => a - b);
  process.stdout.write(
    `${JSON.stringify({
      requests: latencies.length,
      rps: latencies.length / elapsed,
      p50: percentile(latencies, 50),
      p90: percentile(latencies, 90),
      p99: percentile(latencies, 99),
      errors,
      // Over the whole run, warm-up included, as the caller's account of the other processes is.
      cpuSeconds: (cpu.user + cpu.system) / 1e6,
      operations,
      elapsedSeconds: (performance.now() - startedAt) / 1000,
    })}\n`,
  );
  await connection.close();
  await pool.end();
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
