import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const root = path.resolve(__dirname, '../..');

/**
 * A tiny tree with one import per file, run through the project's own dependency-cruiser config:
 * each `bad-*` file breaks one layer rule of DESIGN section 2, and nothing else may be reported.
 */
const FILES: Record<string, string> = {
  'api/route.ts': `import { page } from '../web/page';\nimport { query } from '../db/query';\nexport const route = [page, query];\n`,
  'web/page.ts': `import { rule } from '../domain/rule';\nexport const page = rule;\n`,
  'web/bad-value.ts': `import { route } from '../api/route';\nexport const bad = route;\n`,
  'web/bad-type.ts': `import type { Shape } from '../api/shape';\nexport const bad: Shape | null = null;\n`,
  'api/shape.ts': `export interface Shape { id: string }\n`,
  'db/query.ts': `import { rule } from '../domain/rule';\nexport const query = rule;\n`,
  'db/bad.ts': `import { route } from '../api/route';\nexport const bad = route;\n`,
  'activities/bad.ts': `import { route } from '../api/route';\nexport const bad = route;\n`,
  'activities/good.ts': `import { query } from '../db/query';\nexport const good = query;\n`,
  'integrations/bad-api.ts': `import { route } from '../api/route';\nexport const bad = route;\n`,
  'integrations/bad-db.ts': `import { query } from '../db/query';\nexport const bad = query;\n`,
  'integrations/good.ts': `import { rule } from '../domain/rule';\nexport const good = rule;\n`,
  'config/setting.ts': `export const setting = 1;\n`,
  'domain/rule.ts': [
    `import { createHash } from 'node:crypto';`,
    `import { parsePhoneNumberFromString } from 'libphonenumber-js/max';`,
    `import type { Row } from '../db/row';`,
    `import { other } from './other';`,
    `export const rule = [createHash, parsePhoneNumberFromString, other, null as Row | null];`,
    '',
  ].join('\n'),
  'domain/other.ts': `export const other = 1;\n`,
  'db/row.ts': `export interface Row { id: string }\n`,
  'domain/bad-layer.ts': `import { setting } from '../config/setting';\nexport const bad = setting;\n`,
  'domain/bad-io.ts': `import { readFileSync } from 'node:fs';\nexport const bad = readFileSync;\n`,
  'domain/bad-package.ts': `import { Pool } from 'pg';\nexport const bad = Pool;\n`,
  'workflows/flow.ts': [
    `import { sleep } from '@temporalio/workflow';`,
    `import type { Route } from '../activities/types';`,
    `import { rule } from '../domain/rule';`,
    `export const flow = [sleep, rule, null as Route | null];`,
    '',
  ].join('\n'),
  'activities/types.ts': `export type Route = string;\n`,
  'workflows/bad.ts': `import { good } from '../activities/good';\nexport const bad = good;\n`,
  // The API's folders by caller: each uses its own files and the shared ones; the dashboard may
  // also use the partner's services.
  'api/partner/service.ts': `import { mw } from '../middleware/mw';\nexport const service = mw;\n`,
  'api/middleware/mw.ts': `export const mw = 1;\n`,
  'api/dashboard/page.ts': `import { service } from '../partner/service';\nexport const page = service;\n`,
  'api/rider/bad-partner.ts': `import { service } from '../partner/service';\nexport const bad = service;\n`,
  'api/dashboard/bad-rider.ts': `import { bad } from '../rider/bad-partner';\nexport const worse = bad;\n`,
  'api/middleware/bad-group.ts': `import { service } from '../partner/service';\nexport const bad = service;\n`,
  'api/public/circle-a.ts': `import { b } from './circle-b';\nexport const a = () => b;\n`,
  'api/public/circle-b.ts': `import { a } from './circle-a';\nexport const b = () => a;\n`,
};

interface Violation {
  from: string;
  to: string;
  rule: { name: string };
}

function cruise(dir: string): Violation[] {
  const run = spawnSync(
    path.join(root, 'node_modules', '.bin', 'depcruise'),
    ['--config', path.join(root, '.dependency-cruiser.cjs'), '--output-type', 'json', 'api', 'web', 'db', 'activities', 'integrations', 'config', 'domain', 'workflows'],
    { cwd: dir, encoding: 'utf8', timeout: 60_000 },
  );
  if (!run.stdout) throw new Error(`depcruise printed nothing: ${run.stderr}`);
  return (JSON.parse(run.stdout) as { summary: { violations: Violation[] } }).summary.violations;
}

describe('the layer rules that npm run lint checks', () => {
  let dir: string;

  beforeAll(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'layer-rules-'));
    for (const [file, text] of Object.entries(FILES)) {
      mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
      writeFileSync(path.join(dir, file), text);
    }
    writeFileSync(path.join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions: { module: 'commonjs', strict: true } }));
    // Packages resolve as in the project, so the rules see `node_modules/...` paths.
    symlinkSync(path.join(root, 'node_modules'), path.join(dir, 'node_modules'), 'dir');
  });

  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it('refuses each import that points up a layer, across callers\' folders or in a circle, and only those', () => {
    const found = cruise(dir)
      .map((v) => `${v.rule.name}: ${v.from}`)
      .sort();
    expect(found).toEqual(
      [
        'web-never-imports-api: web/bad-value.ts',
        'web-never-imports-api: web/bad-type.ts',
        'lower-layers-never-import-api: db/bad.ts',
        'lower-layers-never-import-api: activities/bad.ts',
        'lower-layers-never-import-api: integrations/bad-api.ts',
        'integrations-never-import-db: integrations/bad-db.ts',
        'domain-imports-only-domain: domain/bad-layer.ts',
        'domain-imports-only-domain: domain/bad-io.ts',
        'domain-imports-only-domain: domain/bad-package.ts',
        'workflows-stay-deterministic: workflows/bad.ts',
        'api-groups-stand-apart: api/rider/bad-partner.ts',
        'dashboard-uses-only-partner-services: api/dashboard/bad-rider.ts',
        'shared-api-code-serves-every-caller: api/middleware/bad-group.ts',
        'no-circular: api/public/circle-a.ts',
      ].sort(),
    );
  }, 70_000);
});
