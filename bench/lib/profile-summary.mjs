// Reads a V8 .cpuprofile (from `node --cpu-prof`) and lists where the time went: the hottest
// functions by self time, and self time by package (or our own folder).
import { readFileSync, realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

function owner(url) {
  if (!url) return '(native / V8)';
  const modules = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (modules) return modules[1];
  if (url.startsWith('node:')) return 'node core';
  const ours = /\/work\/[^/]+\/([^/]+)\//.exec(url) ?? /\/([^/]+)\/[^/]+$/.exec(url);
  return ours ? `ours: ${ours[1]}` : url;
}

/**
 * `window`: [from, to] in microseconds of the monotonic clock (process.hrtime), the clock the
 * profile's own timestamps use, so a summary can cover one load phase and not the start-up.
 * @param {string} file
 * @param {{ top?: number, window?: [number, number] | null }} [options]
 * @returns {string}
 */
export function summariseProfile(file, { top = 25, window = null } = {}) {
  const profile = JSON.parse(readFileSync(file, 'utf8'));
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const self = new Map();
  let total = 0;
  let at = profile.startTime;
  profile.samples.forEach((id, i) => {
    const delta = profile.timeDeltas[i] ?? 0;
    at += delta;
    if (window && (at < window[0] || at > window[1])) return;
    total += delta;
    self.set(id, (self.get(id) ?? 0) + delta);
  });
  if (total === 0) return '  no samples in this window';
  const byFunction = new Map();
  const byOwner = new Map();
  for (const [id, micros] of self) {
    const { callFrame } = byId.get(id);
    const name = callFrame.functionName || '(anonymous)';
    const where = callFrame.url ? `${callFrame.url.replace(/^file:\/\//, '').replace(/^.*node_modules\//, '')}:${callFrame.lineNumber + 1}` : '';
    const key = `${name} ${where}`.trim();
    byFunction.set(key, (byFunction.get(key) ?? 0) + micros);
    const pkg = owner(callFrame.url);
    byOwner.set(pkg, (byOwner.get(pkg) ?? 0) + micros);
  }
  const pct = (micros) => `${((100 * micros) / total).toFixed(1).padStart(5)}%`;
  const lines = [`  ${(total / 1e6).toFixed(1)} s sampled`];
  lines.push('  by package:');
  for (const [pkg, micros] of [...byOwner].sort((a, b) => b[1] - a[1]).slice(0, 15)) lines.push(`    ${pct(micros)}  ${pkg}`);
  lines.push('  hottest functions (self time):');
  for (const [key, micros] of [...byFunction].sort((a, b) => b[1] - a[1]).slice(0, top)) lines.push(`    ${pct(micros)}  ${key}`);
  return lines.join('\n');
}

/**
 * Whether node was started on this file. The module's URL is percent-encoded and its links are
 * resolved; the script's path as given is neither, so the two are compared as files.
 */
function runAsScript() {
  try {
    return Boolean(process.argv[1]) && realpathSync(process.argv[1]) === fileURLToPath(import.meta.url);
  } catch {
    // No such file: `node -e` puts its first argument there.
    return false;
  }
}

// `node bench/lib/profile-summary.mjs file.cpuprofile` prints one summary.
if (runAsScript()) {
  const [file, top = '25', from, to] = process.argv.slice(2);
  process.stdout.write(`${summariseProfile(file, { top: Number(top), window: from ? [Number(from), Number(to)] : null })}\n`);
}
