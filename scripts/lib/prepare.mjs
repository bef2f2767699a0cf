// Set-up that must work before any dependency is installed: plain Node only.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';

export const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..', '..');

const TEMPORAL_CLI = 'github.com/temporalio/cli/cmd/temporal@v1.5.1';

export function say(message) {
  process.stdout.write(`\u001b[36m▸\u001b[0m ${message}\n`);
}

/** Installs npm packages when node_modules is missing or older than the lock file. */
export function ensureDependencies() {
  const modules = path.join(root, 'node_modules');
  const lock = path.join(root, 'package-lock.json');
  const marker = path.join(modules, '.package-lock.json');
  const fresh = existsSync(marker) && (!existsSync(lock) || statSync(marker).mtimeMs >= statSync(lock).mtimeMs);
  if (fresh) return;
  say('Installing npm packages (first run)…');
  // `npm install` rather than `npm ci`: it follows the lock file just the same, and some registry
  // mirrors write lock files without the other platforms' optional packages, which `npm ci` refuses.
  // The project's .npmrc keeps npm silent; errors are still worth seeing here.
  const args = ['install', '--no-audit', '--no-fund', '--loglevel=error'];
  const result = spawnSync('npm', args, { cwd: root, stdio: 'inherit' });
  if (result.status !== 0) throw new Error('npm install failed (run it by hand to see why)');
}

/** The Node.js major version the project runs on: package.json's dev dependency `node`. */
const PROJECT_NODE_MAJOR = 24;

/**
 * On a machine whose own Node is older than the project's, runs this script again on the
 * project's Node (the registry's `node` package, installed with the dev dependencies), passes it
 * SIGTERM, and exits with its code; returns at once when already on it. Ctrl-C reaches both
 * processes from the terminal, so the parent only waits.
 */
export async function onProjectNode() {
  if (Number(process.versions.node.split('.')[0]) >= PROJECT_NODE_MAJOR) return;
  const projectNode = path.join(root, 'node_modules', '.bin', 'node');
  if (!existsSync(projectNode)) throw new Error(`Node ${PROJECT_NODE_MAJOR} is missing from node_modules: run npm install.`);
  const child = spawn(projectNode, process.argv.slice(1), { stdio: 'inherit' });
  process.on('SIGTERM', () => child.kill('SIGTERM'));
  process.on('SIGINT', () => undefined);
  process.on('SIGHUP', () => undefined);
  const code = await new Promise((resolve) => child.on('exit', (exitCode, signal) => resolve(exitCode ?? (signal === 'SIGINT' ? 130 : 1))));
  process.exit(code);
}

function onPath(name) {
  const result = spawnSync('sh', ['-c', `command -v ${name}`], { encoding: 'utf8' });
  return result.status === 0 ? result.stdout.trim() : null;
}

function goBinDir() {
  try {
    const gobin = execFileSync('go', ['env', 'GOBIN'], { encoding: 'utf8' }).trim();
    if (gobin) return gobin;
    return path.join(execFileSync('go', ['env', 'GOPATH'], { encoding: 'utf8' }).trim(), 'bin');
  } catch {
    return path.join(homedir(), 'go', 'bin');
  }
}

/** Finds the Temporal CLI, installing it with `go install` when it is missing. */
export function ensureTemporalCli() {
  if (process.env.TEMPORAL_CLI && existsSync(process.env.TEMPORAL_CLI)) return process.env.TEMPORAL_CLI;
  const found = onPath('temporal');
  if (found) return found;
  const hasGo = onPath('go');
  const candidate = path.join(hasGo ? goBinDir() : path.join(homedir(), 'go', 'bin'), 'temporal');
  if (existsSync(candidate)) return candidate;
  if (!hasGo) {
    throw new Error(
      'The Temporal CLI is missing and Go is not installed to build it. Install Go (https://go.dev/dl) ' +
        `and run: go install ${TEMPORAL_CLI}  — or put a "temporal" binary on PATH.`,
    );
  }
  say(`Installing the Temporal CLI (go install ${TEMPORAL_CLI}; takes a few minutes once)…`);
  const result = spawnSync('go', ['install', TEMPORAL_CLI], { stdio: 'inherit' });
  if (result.status !== 0 || !existsSync(candidate)) {
    throw new Error(`go install ${TEMPORAL_CLI} failed; run it by hand to see why.`);
  }
  return candidate;
}

/**
 * A program from one of Debian's packages: the first candidate that exists (or `command` on the
 * PATH), else installed with apt when that is allowed (root), for `why`.
 */
function ensureDebianPackage({ pkg, command, binary, candidates, why, installArgs = [] }) {
  const found = candidates.filter(Boolean).find((candidate) => existsSync(candidate)) ?? onPath(command);
  return found ?? aptInstall({ pkg, binary, why, installArgs });
}

/** Installs one of Debian's packages with apt, when that is allowed (root), and returns `binary`. */
function aptInstall({ pkg, binary, why, installArgs = [] }) {
  if (process.getuid?.() !== 0 || !onPath('apt-get')) {
    throw new Error(`${why} needs ${pkg}: install it (Debian: apt-get install ${pkg}) or say where it is.`);
  }
  say(`Installing ${pkg} for ${why} (apt-get install ${pkg})…`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  spawnSync('apt-get', ['update', '-qq'], { stdio: 'inherit', env });
  const result = spawnSync('apt-get', ['install', '-y', '-qq', ...installArgs, pkg], { stdio: 'inherit', env });
  if (result.status !== 0 || !existsSync(binary)) throw new Error(`apt-get install ${pkg} failed`);
  return binary;
}

/**
 * Browser tests drive Debian's Chromium with playwright-core (a test tool's own browser
 * download is not possible here). CHROMIUM_PATH names another.
 */
export function ensureChromium() {
  return ensureDebianPackage({
    pkg: 'chromium',
    command: 'chromium',
    binary: '/usr/bin/chromium',
    candidates: [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser'],
    why: 'the browser tests',
  });
}

/**
 * The topology tests run the compose stack's nginx config (temporal-docker/nginx.conf) too, in
 * front of stand-in API processes, to see what it retries: Debian's nginx. NGINX_PATH names another.
 */
export function ensureNginx() {
  return ensureDebianPackage({
    pkg: 'nginx',
    command: 'nginx',
    binary: '/usr/sbin/nginx',
    candidates: [process.env.NGINX_PATH, '/usr/sbin/nginx'],
    why: 'the topology tests',
    installArgs: ['--no-install-recommends'],
  });
}

/** `npm run topology` and its tests put Debian's HAProxy in front of the API processes. HAPROXY_PATH names another. */
export function ensureHaproxy() {
  return ensureDebianPackage({
    pkg: 'haproxy',
    command: 'haproxy',
    binary: '/usr/sbin/haproxy',
    candidates: [process.env.HAPROXY_PATH, '/usr/sbin/haproxy'],
    why: 'the topology',
    installArgs: ['--no-install-recommends'],
  });
}

/**
 * The PHP client's tests (test/integration/php-python-clients.test.ts) run it with Debian's php-cli: its
 * HTTP goes through PHP's own streams, so php-cli alone is enough (docs/decisions/0170). PHP_PATH
 * names another.
 */
export function ensurePhp() {
  return ensureDebianPackage({
    pkg: 'php-cli',
    command: 'php',
    binary: '/usr/bin/php',
    candidates: [process.env.PHP_PATH],
    why: 'the PHP client tests',
    installArgs: ['--no-install-recommends'],
  });
}

/** True when `python` runs and is Python 3.11 or newer, the Python client's floor. */
function isPython311(python) {
  const result = spawnSync(python, ['-c', 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else 1)'], { stdio: 'ignore' });
  return result.status === 0;
}

/**
 * The Python client's tests run it with a Python 3.11 or newer: PYTHON_PATH, else `python3` on the
 * PATH, else Debian's (installed with apt when missing or older; bookworm's is 3.11).
 */
export function ensurePython() {
  const candidates = [process.env.PYTHON_PATH, onPath('python3'), '/usr/bin/python3'].filter(Boolean);
  const found = candidates.find((candidate) => existsSync(candidate) && isPython311(candidate));
  if (found) return found;
  // Asked of apt even when an older python3 is on the PATH: Debian's may be newer than it.
  const installed = aptInstall({ pkg: 'python3', binary: '/usr/bin/python3', why: 'the Python client tests', installArgs: ['--no-install-recommends'] });
  if (!isPython311(installed)) throw new Error(`the Python client tests need Python 3.11 or newer; ${installed} is older (set PYTHON_PATH)`);
  return installed;
}
