/**
 * `npm test` runs two suites at once, each jest worker a lane with a database of its own
 * (scripts/test.mjs): a suite, and every process it starts, uses its lane's.
 */
const lanes = process.env.TEST_DATABASE_LANES?.split(' ').filter(Boolean) ?? [];
const lane = lanes[Number(process.env.JEST_WORKER_ID ?? '1') - 1];
if (lane) process.env.TEST_DATABASE_URL = lane;

export {};
