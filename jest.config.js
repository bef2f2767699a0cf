/**
 * Unit tests need nothing running; every other folder runs against the real stack that
 * `npm test` (scripts/test.mjs) brings up.
 */
// typebox, request-filtering-agent, MikroORM 7 and its kysely ship ES modules only; swc turns them (and
// our TypeScript) into CommonJS for jest.
const transform = { '^.+\\.(t|j|mj)s$': ['@swc/jest', { jsc: { target: 'es2022' }, module: { type: 'commonjs' } }] };
const shared = {
  testEnvironment: 'node',
  transform,
  transformIgnorePatterns: ['/node_modules/(?!(typebox|request-filtering-agent|@mikro-orm|kysely)/)'],
  moduleFileExtensions: ['ts', 'js', 'mjs', 'json'],
};

/** @type {import('jest').Config} */
module.exports = {
  testTimeout: 60_000,
  projects: [
    { displayName: 'unit', ...shared, testMatch: ['<rootDir>/test/unit/**/*.test.ts'] },
    {
      displayName: 'stack',
      ...shared,
      testMatch: ['<rootDir>/test/{integration,workflow,browser,conformance,fault}/**/*.test.ts'],
      setupFiles: ['<rootDir>/test/helpers/lane-database.ts'],
      globalSetup: '<rootDir>/test/helpers/global-setup.ts',
      globalTeardown: '<rootDir>/test/helpers/global-teardown.ts',
    },
    // The production topology (real Temporal server, HAProxy, several APIs and workers) under
    // faults; `npm test` runs it on its own after the other projects (scripts/test.mjs).
    { displayName: 'topology', ...shared, testMatch: ['<rootDir>/test/topology/**/*.test.ts'] },
  ],
};
