import { NativeConnection, Runtime, DefaultLogger, Worker } from '@temporalio/worker';

/**
 * Runs the floor's empty workflow on a task queue of its own, in a process of its own, as the
 * product's worker runs the delivery workflow. Prints `ready` once it polls.
 *
 * Environment: TEMPORAL_ADDRESS, BENCH_FLOOR_TASK_QUEUE.
 */
async function main(): Promise<void> {
  Runtime.install({ logger: new DefaultLogger('WARN') });
  const connection = await NativeConnection.connect({ address: process.env.TEMPORAL_ADDRESS as string });
  const worker = await Worker.create({
    connection,
    taskQueue: process.env.BENCH_FLOOR_TASK_QUEUE ?? 'bench-floor',
    workflowsPath: require.resolve('./baseline-workflows'),
  });
  process.once('SIGTERM', () => worker.shutdown());
  process.once('SIGINT', () => worker.shutdown());
  const running = worker.run();
  process.stdout.write('ready\n');
  await running;
  await connection.close();
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
