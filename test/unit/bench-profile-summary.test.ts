import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { summariseProfile } from '../../bench/lib/profile-summary.mjs';

const root = path.resolve(__dirname, '../..');
const start = 5_000_000;
const frame = (functionName: string, url: string, lineNumber = 0) => ({ functionName, url, lineNumber, columnNumber: 0, scriptId: '0' });

/**
 * A .cpuprofile as `node --cpu-prof` writes it, cut down: `handle` (our api/ folder, on two
 * call paths), a function of @mikro-orm/core, one of node:fs, an anonymous one of pg, and the
 * garbage collector; each sample's time delta is the self time it adds to its node.
 */
const profile = {
  nodes: [
    { id: 1, callFrame: frame('(root)', ''), children: [2, 6, 7] },
    { id: 2, callFrame: frame('handle', 'file:///work/main/api/routes/deliveries.js', 9), children: [3, 4] },
    { id: 3, callFrame: frame('parse', 'file:///work/main/node_modules/@mikro-orm/core/dist/entity.js', 99) },
    { id: 4, callFrame: frame('readFile', 'node:fs', 0) },
    { id: 5, callFrame: frame('', 'file:///work/main/node_modules/pg/lib/client.js', 4) },
    { id: 6, callFrame: frame('(garbage collector)', '') },
    { id: 7, callFrame: frame('handle', 'file:///work/main/api/routes/deliveries.js', 9), children: [5] },
  ],
  startTime: start,
  endTime: start + 1_000_000,
  // At start + 0.3, 0.55, 0.7, 0.8, 0.92 and 1.0 s.
  samples: [2, 3, 4, 7, 6, 5],
  timeDeltas: [300_000, 250_000, 150_000, 100_000, 120_000, 80_000],
};

/** The summary of the samples from start + 0.55 s to start + 0.8 s, line by line. */
const windowSummary = [
  '  0.5 s sampled',
  '  by package:',
  '     50.0%  @mikro-orm/core',
  '     30.0%  node core',
  '     20.0%  ours: api',
  '  hottest functions (self time):',
  '     50.0%  parse @mikro-orm/core/dist/entity.js:100',
  '     30.0%  readFile node:fs:1',
  '     20.0%  handle /work/main/api/routes/deliveries.js:10',
];

let folder: string;
let file: string;
beforeAll(() => {
  folder = mkdtempSync(path.join(tmpdir(), 'bench-profile-'));
  file = path.join(folder, 'api.cpuprofile');
  writeFileSync(file, JSON.stringify(profile));
});
afterAll(() => rmSync(folder, { recursive: true, force: true }));

describe('summariseProfile', () => {
  it('gives the time sampled, the self time by package and the hottest functions, largest first', () => {
    expect(summariseProfile(file)).toBe(
      [
        '  1.0 s sampled',
        '  by package:',
        '     40.0%  ours: api',
        '     25.0%  @mikro-orm/core',
        '     15.0%  node core',
        '     12.0%  (native / V8)',
        '      8.0%  pg',
        '  hottest functions (self time):',
        '     40.0%  handle /work/main/api/routes/deliveries.js:10',
        '     25.0%  parse @mikro-orm/core/dist/entity.js:100',
        '     15.0%  readFile node:fs:1',
        '     12.0%  (garbage collector)',
        '      8.0%  (anonymous) pg/lib/client.js:5',
      ].join('\n'),
    );
  });

  it('lists only the `top` hottest functions', () => {
    const hottest = summariseProfile(file, { top: 2 }).split('  hottest functions (self time):\n')[1];
    expect(hottest).toBe(['     40.0%  handle /work/main/api/routes/deliveries.js:10', '     25.0%  parse @mikro-orm/core/dist/entity.js:100'].join('\n'));
  });

  it('counts only the samples taken within the window, its ends included, as shares of that time', () => {
    expect(summariseProfile(file, { window: [start + 550_000, start + 800_000] })).toBe(windowSummary.join('\n'));
  });

  it('says so when the window holds no samples', () => {
    expect(summariseProfile(file, { window: [0, start] })).toBe('  no samples in this window');
    expect(summariseProfile(file, { window: [start + 1_000_001, start + 2_000_000] })).toBe('  no samples in this window');
  });

  it('names a folder of ours outside /work by the folder the file is in', () => {
    const elsewhere = path.join(folder, 'elsewhere.cpuprofile');
    writeFileSync(
      elsewhere,
      JSON.stringify({
        nodes: [{ id: 1, callFrame: frame('route', 'file:///home/ama/parcels/api/main.js', 0) }],
        startTime: 0,
        samples: [1],
        timeDeltas: [2_000_000],
      }),
    );
    expect(summariseProfile(elsewhere)).toBe(
      ['  2.0 s sampled', '  by package:', '    100.0%  ours: api', '  hottest functions (self time):', '    100.0%  route /home/ama/parcels/api/main.js:1'].join('\n'),
    );
  });

  it('prints the summary of a file named on the command line, cut to a window', () => {
    const printed = spawnSync(process.execPath, ['bench/lib/profile-summary.mjs', file, '1', String(start + 550_000), String(start + 800_000)], {
      cwd: root,
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect({ status: printed.status, stderr: printed.stderr }).toEqual({ status: 0, stderr: '' });
    // `1` asks for the hottest function only.
    expect(printed.stdout).toBe(`${windowSummary.slice(0, 7).join('\n')}\n`);
  });

  it('prints the summary from a checkout whose path has a space in it, or is reached through a link', () => {
    const spaced = path.join(folder, 'parcel service');
    mkdirSync(spaced);
    copyFileSync(path.join(root, 'bench', 'lib', 'profile-summary.mjs'), path.join(spaced, 'profile-summary.mjs'));
    symlinkSync(spaced, path.join(folder, 'linked'));
    for (const script of [path.join(spaced, 'profile-summary.mjs'), path.join(folder, 'linked', 'profile-summary.mjs')]) {
      const printed = spawnSync(process.execPath, [script, file, '1'], { encoding: 'utf8', timeout: 30_000 });
      expect({ script, status: printed.status, stderr: printed.stderr }).toEqual({ script, status: 0, stderr: '' });
      expect(printed.stdout).toMatch(/^  1\.0 s sampled\n/);
    }
  });
});
