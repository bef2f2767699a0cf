// SeaweedFS (Apache-2.0), the S3-compatible store the photo tests run against: built once from
// the Go module proxy into a cached binary, and started by a test on free loopback ports.
//
// Its go.mod has a replace directive, so `go install module@version` refuses it; the module is
// downloaded as any dependency is, copied somewhere writable (the module cache is read-only) and
// built there with `go build ./weed`.
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, closeSync, cpSync, existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import path from 'node:path';
import { spawnGroup } from './process-group.mjs';
import { waitUntil } from './wait-until.mjs';
import { say } from './prepare.mjs';
import { freePort, portInUse, stopProcess } from './stack.mjs';

/** The newest SeaweedFS build the module proxy has (a pseudo-version of its master branch). */
export const SEAWEEDFS_VERSION = 'v0.0.0-20261109003541-7506e5f91cd6';
const MODULE = 'github.com/seaweedfs/seaweedfs';

function cacheDir() {
  return path.join(process.env.XDG_CACHE_HOME ?? path.join(homedir(), '.cache'), 'seaweedfs', SEAWEEDFS_VERSION);
}

/** Gives the owner write access to everything under `dir`: the module cache hands out read-only files. */
function makeWritable(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const file = path.join(dir, entry.name);
    chmodSync(file, statSync(file).mode | 0o200);
    if (entry.isDirectory()) makeWritable(file);
  }
}

/** Where the `weed` binary is, or will be once built: SEAWEEDFS_PATH, else the cached build's. */
export function seaweedfsPath() {
  if (process.env.SEAWEEDFS_PATH) {
    if (!existsSync(process.env.SEAWEEDFS_PATH)) throw new Error(`SEAWEEDFS_PATH names ${process.env.SEAWEEDFS_PATH}, which does not exist.`);
    return process.env.SEAWEEDFS_PATH;
  }
  return path.join(cacheDir(), 'weed');
}

/**
 * The `weed` binary: SEAWEEDFS_PATH when set, else the one built for SEAWEEDFS_VERSION, building
 * it first when missing (a few minutes, once).
 */
export function ensureSeaweedfs() {
  const binary = seaweedfsPath();
  if (existsSync(binary)) return binary;
  if (spawnSync('go', ['version'], { stdio: 'ignore' }).status !== 0) {
    throw new Error('SeaweedFS (for the photo-store tests) is missing and Go is not installed to build it: install Go (https://go.dev/dl), or set SEAWEEDFS_PATH.');
  }
  say(`Building SeaweedFS ${SEAWEEDFS_VERSION} for the photo-store tests (go build; a few minutes, once)…`);
  const downloaded = JSON.parse(execFileSync('go', ['mod', 'download', '-json', `${MODULE}@${SEAWEEDFS_VERSION}`], { encoding: 'utf8' }));
  if (!downloaded.Dir) throw new Error(`go mod download ${MODULE}@${SEAWEEDFS_VERSION} failed: ${downloaded.Error ?? 'no folder'}`);
  const work = mkdtempSync(path.join(tmpdir(), 'seaweedfs-build-'));
  try {
    const source = path.join(work, 'src');
    cpSync(downloaded.Dir, source, { recursive: true });
    makeWritable(source);
    mkdirSync(cacheDir(), { recursive: true });
    // Built beside its final name and renamed, so an interrupted build leaves no binary behind
    // (and two runs building at once each rename a whole one).
    const partial = `${binary}.${process.pid}.partial`;
    const result = spawnSync('go', ['build', '-o', partial, './weed'], {
      cwd: source,
      stdio: 'inherit',
      // -mod=mod lets the build settle go.sum for this build's own module graph.
      env: { ...process.env, GOFLAGS: '-mod=mod', CGO_ENABLED: process.env.CGO_ENABLED ?? '0' },
    });
    if (result.status !== 0 || !existsSync(partial)) throw new Error(`go build ./weed of ${MODULE}@${SEAWEEDFS_VERSION} failed; run it by hand to see why.`);
    renameSync(partial, binary);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  return binary;
}

/** The last lines of `file`, to say in an error why a process stopped. */
function tailOf(file, lines = 15) {
  try {
    return readFileSync(file, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '(no log)';
  }
}

/** How many times a start is tried on other ports when SeaweedFS stops before it serves. */
const START_TRIES = 3;

/**
 * Starts `weed server` (master, volume, filer and the S3 gateway in one process) on loopback
 * ports of its own under `dataDir`, with one S3 identity (`credentials`), so requests and
 * presigned links are checked as a real store checks them. Returns { endpoint, stop } once
 * `ready(endpoint)` answers true (by default, once the S3 port listens).
 *
 * A port found free may be taken by another process before weed binds it; weed then exits
 * (255), and the start is tried again on other ports.
 */
export async function startSeaweedfs({ binary, dataDir, credentials, ready, logFile = path.join(dataDir, 'weed.log'), startTimeoutMs = 60_000 }) {
  mkdirSync(dataDir, { recursive: true });
  const config = path.join(dataDir, 's3.json');
  writeFileSync(
    config,
    JSON.stringify({
      identities: [
        {
          name: 'service',
          credentials: [{ accessKey: credentials.accessKeyId, secretKey: credentials.secretAccessKey }],
          actions: ['Admin', 'Read', 'Write', 'List', 'Tagging'],
        },
      ],
    }),
  );
  for (let attempt = 1; ; attempt++) {
    try {
      // A folder per try: a master keeps its raft state, with its address, under it.
      const storeDir = path.join(dataDir, `data-${attempt}`);
      mkdirSync(storeDir, { recursive: true });
      return await startOnFreePorts({ binary, storeDir, config, ready, logFile, startTimeoutMs });
    } catch (error) {
      if (!(error instanceof SeaweedfsExited) || attempt >= START_TRIES) throw error;
    }
  }
}

class SeaweedfsExited extends Error {}

async function startOnFreePorts({ binary, storeDir, config, ready, logFile, startTimeoutMs }) {
  // Every port named: the gRPC ones default to the HTTP port + 10000, which may be taken or past 65535.
  const ports = {};
  for (const name of ['master.port', 'master.port.grpc', 'volume.port', 'volume.port.grpc', 'filer.port', 'filer.port.grpc', 's3.port', 's3.port.grpc']) {
    ports[name] = await freePort();
  }
  const args = [
    'server',
    '-ip=127.0.0.1',
    `-dir=${storeDir}`,
    ...Object.entries(ports).map(([name, port]) => `-${name}=${port}`),
    '-s3',
    `-s3.config=${config}`,
    // The catalogue servers that ride along with the gateway are not wanted here.
    '-s3.port.iceberg=0',
    '-s3.port.lance=0',
    // Small volumes: a test stores a few photos, not gigabytes.
    '-master.volumeSizeLimitMB=64',
    '-volume.max=0',
  ];
  const out = openSync(logFile, 'a');
  const child = spawnGroup(binary, args, { stdio: ['ignore', out, out], env: { PATH: process.env.PATH, HOME: process.env.HOME } });
  closeSync(out);
  let exited = null;
  child.once('exit', (code, signal) => (exited = code ?? signal));
  const endpoint = `http://127.0.0.1:${ports['s3.port']}`;
  try {
    await waitUntil(async () => {
      if (exited !== null) throw new SeaweedfsExited(`SeaweedFS exited (${exited}); ${logFile} ends:\n${tailOf(logFile)}`);
      if (!(await portInUse(ports['s3.port']))) return false;
      return ready ? ready(endpoint) : true;
    }, 'SeaweedFS', startTimeoutMs);
  } catch (error) {
    await stopProcess(child);
    throw error;
  }
  return { endpoint, stop: () => stopProcess(child) };
}
