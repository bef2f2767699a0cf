import { initOrm, migrate } from './orm';

/** `npm run migrate`: applies pending migrations to DATABASE_URL. */
async function main(): Promise<void> {
  const url = process.env.DATABASE_URL;
  if (!url) {
    process.stderr.write('DATABASE_URL: required\n');
    process.exit(78);
  }
  const orm = await initOrm(url, 1);
  try {
    const applied = await migrate(orm);
    process.stdout.write(`${JSON.stringify({ applied })}\n`);
  } finally {
    await orm.close();
  }
}

void main();
