import { spawnSync } from 'node:child_process';
import { ourProgram } from '../helpers/child-process';

describe('the demo seed of npm start', () => {
  it('seeds nothing in production: it does not even open the database', () => {
    // A database that cannot be reached: the seed would fail at once if it tried to write.
    const { command, args, cwd } = ourProgram('scripts/seed-demo.ts');
    const seeded = spawnSync(command, args, {
      cwd,
      env: { PATH: process.env.PATH, NODE_ENV: 'production', DATABASE_URL: 'postgres://nobody@127.0.0.1:1/nothing' },
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect({ status: seeded.status, stderr: seeded.stderr }).toEqual({ status: 0, stderr: '' });
    const printed = JSON.parse(seeded.stdout.trim()) as Record<string, unknown>;
    expect(printed).toEqual({ skipped: expect.stringMatching(/production/) });
    expect(printed).not.toHaveProperty('api_key');
  }, 70_000);
});
