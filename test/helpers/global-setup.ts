/** The stack tests run against the services `npm test` started; say so plainly when they are missing. */
export default function globalSetup(): void {
  const missing = ['TEST_DATABASE_URL', 'TEST_TEMPORAL_ADDRESS', 'WORKFLOW_BUNDLE'].filter((name) => !process.env[name]);
  if (missing.length) {
    throw new Error(`Missing ${missing.join(', ')}: run the stack tests through \`npm test\` (\`npm test -- <file>\` for one file).`);
  }
}
