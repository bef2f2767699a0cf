// Builds SeaweedFS in a process of its own, so `npm test` runs the other suites meanwhile, and
// writes how it ended to the file named by its first argument (`ok`, or `failed: …`), which the
// photo-store tests wait for (test/helpers/seaweedfs.ts).
import { writeFileSync } from 'node:fs';
import { ensureSeaweedfs } from './seaweedfs.mjs';

const statusFile = process.argv[2];
try {
  ensureSeaweedfs();
  writeFileSync(statusFile, 'ok\n');
} catch (error) {
  writeFileSync(statusFile, `failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
}
