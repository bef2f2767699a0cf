// `npm run build`, first half: compiles the TypeScript that production runs into JavaScript, one
// file per source file, so `node dist/api/main.js` starts without compiling anything at run time.
// `node scripts/build.mjs [out]` writes to `out` (dist/ by default); `npm test` compiles into its
// own folder. Type-checking is tsc's (`npm run typecheck`): esbuild only strips the types.
import { build } from 'esbuild';
import { copyFileSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** Everything a production process loads: the API, the worker, the migrations and `scripts/ops.ts`. */
const FOLDERS = ['activities', 'api', 'config', 'db', 'domain', 'integrations', 'scripts', 'web', 'workers', 'workflows'];

/** Every file under the folders, relative to the root. */
function filesUnder(folders) {
  return folders.flatMap((folder) =>
    readdirSync(path.join(root, folder), { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile())
      .map((entry) => path.relative(root, path.join(entry.parentPath ?? entry.path, entry.name))),
  );
}

async function main() {
  const started = Date.now();
  const out = path.resolve(root, process.argv[2] ?? 'dist');
  const files = filesUnder(FOLDERS);
  const sources = files.filter((file) => file.endsWith('.ts') && !file.endsWith('.d.ts'));
  // The rest is read at run time beside the code that reads it (web pages, browser scripts and
  // styles, the bundled gazetteer JSON), so it is copied unchanged, never transpiled. The .mjs
  // files are the development scripts (npm start, npm test), which run from the source tree.
  const assets = files.filter((file) => !file.endsWith('.ts') && !file.endsWith('.mjs'));

  // Only this build's folders: the workflow bundle beside them stays.
  for (const folder of FOLDERS) rmSync(path.join(out, folder), { recursive: true, force: true });
  await build({
    absWorkingDir: root,
    entryPoints: sources,
    outbase: '.',
    outdir: out,
    // Each file on its own, requiring its neighbours and node_modules as tsx ran them: CommonJS,
    // as tsconfig.json's module kind, since package.json declares no "type".
    bundle: false,
    format: 'cjs',
    platform: 'node',
    target: 'node24',
    // Stack traces name dist/ lines; `node --enable-source-maps` maps them back to the TypeScript.
    sourcemap: 'linked',
    logLevel: 'warning',
  });
  for (const asset of assets) {
    mkdirSync(path.dirname(path.join(out, asset)), { recursive: true });
    copyFileSync(path.join(root, asset), path.join(out, asset));
  }
  process.stdout.write(`${JSON.stringify({ out, compiled: sources.length, copied: assets.length, ms: Date.now() - started })}\n`);
}

main().catch((error) => {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
