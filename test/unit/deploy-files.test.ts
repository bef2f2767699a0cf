import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { SearchAttributeType } from '@temporalio/common';
import { DockerfileParser, type Instruction, type ModifiableInstruction } from 'dockerfile-ast';
import { parse } from 'yaml';
import { loadSettings, sandboxedInProduction, SettingsError } from '../../config/settings';
import { DeliveryReferenceKey, DeliveryStatusKey, NeedsAttentionKey, PartnerIdKey, PaymentStatusKey } from '../../workflows/messages';
import { LIVE_PROVIDERS } from '../helpers/live-providers';

// Docker cannot run in CI, so the deployment files are checked by reading them: what they run,
// what they publish, how they report health, and that they set only settings the code reads.

const root = path.resolve(__dirname, '../..');
const read = (file: string) => readFileSync(path.join(root, file), 'utf8');

type Env = Record<string, string>;
interface Service {
  image?: string;
  build?: { context: string; dockerfile: string };
  command?: string[];
  entrypoint?: string[];
  environment?: Env | string[];
  ports?: string[];
  expose?: string[];
  volumes?: string[];
  depends_on?: Record<string, { condition: string }>;
  healthcheck?: { test: string[] | string };
  restart?: string;
}

const compose = parse(read('temporal-docker/docker-compose.yml'), { merge: true }) as { services: Record<string, Service> };
const services = compose.services;
const service = (name: string): Service => {
  const found = services[name];
  if (!found) throw new Error(`the compose file has no ${name} service`);
  return found;
};

/**
 * `${NAME:-default}`, `${NAME-default}` and `${NAME}` as compose resolves them with the operator's
 * variables (`.env` or the shell): none given, every default.
 */
function interpolate(value: string, operator: Env = {}): string {
  return value.replace(/\$\{([A-Z0-9_]+)(:?)(?:-([^}]*))?\}/g, (_match, name: string, colon: string, fallback?: string) => {
    const set = operator[name];
    if (set !== undefined && (set !== '' || colon === '')) return set;
    return fallback ?? set ?? '';
  });
}

function environmentOf(name: string, operator: Env = {}): Env {
  const raw = service(name).environment ?? {};
  const pairs = Array.isArray(raw) ? raw.map((line) => line.split(/=(.*)/s).slice(0, 2) as [string, string]) : Object.entries(raw);
  return Object.fromEntries(pairs.map(([key, value]) => [key, interpolate(String(value ?? ''), operator)]));
}

/** What an operator sets for a live stack: a real gateway, SMS provider and SMTP server. */
const LIVE_OPERATOR: Env = {
  SITE_URL: 'https://deliveries.example.com.gh',
  ...LIVE_PROVIDERS,
  SMTP_URL: 'smtps://mailer:password@smtp.example.com.gh:465',
  MAIL_FROM: 'Deliveries <no-reply@example.com.gh>',
  METRICS_TOKEN: 'metrics-token-0123456789abcdefghijklmnop',
};

/** What a staging stack (or a laptop trying the compose file) sets: the site and the one opt-in. */
const STAGING_OPERATOR: Env = { SITE_URL: 'http://localhost:3000', ALLOW_SANDBOX_IN_PRODUCTION: 'true', METRICS_TOKEN: 'metrics-token-0123456789abcdefghijklmnop' };

function refusal(env: Env): SettingsError {
  try {
    loadSettings(env);
  } catch (error) {
    if (error instanceof SettingsError) return error;
    throw error;
  }
  throw new Error('expected the settings to be refused');
}

/** Every environment variable config/settings.ts reads: those it names, and those it asks for while loading. */
function settingNames(): Set<string> {
  const names = new Set([...read('config/settings.ts').matchAll(/\(env, '([A-Z][A-Z0-9_]*)'/g)].map((m) => m[1] as string));
  const recording = (env: Env) =>
    new Proxy(env, {
      get(target, key) {
        if (typeof key === 'string') names.add(key);
        return target[key as string];
      },
    });
  loadSettings(recording({ DATABASE_URL: 'postgres://localhost/delivery' }));
  loadSettings(recording({ ...environmentOf('worker', LIVE_OPERATOR) }));
  loadSettings(recording({ ...environmentOf('worker', STAGING_OPERATOR) }));
  return names;
}

/** The source file `npm run build` compiles to a dist/ entry point: dist/api/main.js ← api/main.ts. */
const compiledFrom = (entry: string): string => entry.replace(/^dist\//, '').replace(/\.js$/, '.ts');

const healthTest = (name: string): string => {
  const test = service(name).healthcheck?.test;
  return Array.isArray(test) ? test.join(' ') : (test ?? '');
};

describe('the compose file', () => {
  it('pins every image to a version, never latest', () => {
    for (const [name, svc] of Object.entries(services)) {
      const image = interpolate(svc.image ?? '');
      expect({ name, image }).toEqual({ name, image: expect.stringMatching(/^[\w./-]+:[\w.-]+$/) });
      expect({ name, tag: image.split(':').pop() }).not.toEqual({ name, tag: 'latest' });
    }
  });

  it('runs Temporal on PostgreSQL, with the UI and a job that prepares the namespace', () => {
    const temporal = service('temporal');
    expect(temporal.image).toMatch(/^temporalio\/(auto-setup|server):1\.\d+\.\d+$/);
    const env = environmentOf('temporal');
    expect(env.DB).toBe('postgres12');
    const persistence = service(env.POSTGRES_SEEDS ?? '');
    expect(persistence.image).toMatch(/^postgres:\d+/);
    expect(env.POSTGRES_PWD).toBe(environmentOf(env.POSTGRES_SEEDS ?? '').POSTGRES_PASSWORD);
    expect(temporal.depends_on?.[env.POSTGRES_SEEDS ?? '']).toEqual({ condition: 'service_healthy' });
    const dynamicConfig = path.basename(env.DYNAMIC_CONFIG_FILE_PATH ?? '');
    expect(existsSync(path.join(root, 'temporal-docker/dynamicconfig', dynamicConfig))).toBe(true);

    const ui = service('temporal-ui');
    expect(ui.image).toMatch(/^temporalio\/ui:2\.\d+\.\d+$/);
    expect(environmentOf('temporal-ui').TEMPORAL_ADDRESS).toBe('temporal:7233');

    const setup = service('temporal-setup');
    expect(setup.image).toMatch(/^temporalio\/admin-tools:1\.\d+\.\d+/);
    expect(setup.depends_on?.temporal).toEqual({ condition: 'service_healthy' });
    expect(setup.restart).toBe('no');
    expect(setup.volumes).toContain('./setup-temporal.sh:/setup-temporal.sh:ro');
    expect(setup.entrypoint).toEqual(['/bin/sh', '/setup-temporal.sh']);
  });

  it('leaves the service settings out of the Temporal setup job', () => {
    expect(read('temporal-docker/setup-temporal.sh')).not.toMatch(/PAYMENT_GATEWAY|SMS_PROVIDER|SMTP_URL|ALLOW_SANDBOX_IN_PRODUCTION|sandbox|outbox/);
    expect(Object.keys(environmentOf('temporal-setup')).sort()).toEqual(['TEMPORAL_ADDRESS', 'TEMPORAL_NAMESPACE', 'TEMPORAL_RETENTION']);
  });

  it('registers every search attribute the workflows set, each with its type', () => {
    const script = read('temporal-docker/setup-temporal.sh');
    const listed = /SEARCH_ATTRIBUTES="([^"]+)"/.exec(script)?.[1]?.split(/\s+/) ?? [];
    const TYPE_NAMES: Record<string, string> = { [SearchAttributeType.KEYWORD]: 'Keyword', [SearchAttributeType.BOOL]: 'Bool' };
    const keys = [DeliveryStatusKey, PaymentStatusKey, PartnerIdKey, DeliveryReferenceKey, NeedsAttentionKey];
    expect(listed.sort()).toEqual(keys.map((key) => `${key.name}=${TYPE_NAMES[key.type]}`).sort());
    expect(script).toMatch(/search-attribute create [^\n]*\\\n\s*--name "\$name" --type "\$type"/);
    expect(script).toMatch(/namespace create [^\n]*--namespace "\$TEMPORAL_NAMESPACE"/);
  });

  it('points the API, the worker, the UI and the setup job at one namespace on one Temporal', () => {
    const namespace = environmentOf('temporal-setup').TEMPORAL_NAMESPACE;
    expect(namespace).toMatch(/^[a-z][a-z0-9-]+$/);
    for (const name of ['api', 'worker']) {
      expect(environmentOf(name)).toMatchObject({ TEMPORAL_ADDRESS: 'temporal:7233', TEMPORAL_NAMESPACE: namespace });
    }
    expect(environmentOf('temporal-setup').TEMPORAL_ADDRESS).toBe('temporal:7233');
    expect(environmentOf('temporal-ui').TEMPORAL_DEFAULT_NAMESPACE).toBe(namespace);
  });

  it('builds the API, the worker and the migrations from the service Dockerfile and runs their compiled JavaScript with node directly', () => {
    // The API runs with the image's V8 flags (a small young generation; see the Dockerfile).
    const commands: Record<string, string[]> = {
      api: ['--max-semi-space-size=4', 'dist/api/main.js'],
      worker: ['dist/workers/main.js'],
      migrate: ['dist/db/migrate.js'],
    };
    for (const [name, args] of Object.entries(commands)) {
      const svc = service(name);
      const entry = args.at(-1) as string;
      expect(svc.build).toEqual({ context: '..', dockerfile: 'Dockerfile' });
      expect(svc.command).toEqual(['node', ...args]);
      expect(svc.command?.join(' ')).not.toMatch(/tsx|\.ts\b/);
      expect(existsSync(path.join(root, compiledFrom(entry)))).toBe(true);
    }
    expect(service('api').image).toBe(service('worker').image);
  });

  it('publishes the API only through its proxy, keeps Temporal and its UI on loopback, and exposes worker metrics to the network only', () => {
    const port = environmentOf('api').PORT;
    expect(service('api').ports).toBeUndefined();
    expect(service('api').expose).toEqual([port]);
    expect(service('proxy').ports).toEqual(['3000:80']);
    expect(service('proxy').volumes).toEqual(['./nginx.conf:/etc/nginx/nginx.conf:ro']);
    expect(service('proxy').depends_on).toEqual({ api: { condition: 'service_healthy' } });
    expect(healthTest('proxy')).toContain('http://127.0.0.1/healthz');
    expect(service('temporal').ports).toEqual(['127.0.0.1:7233:7233']);
    expect(service('temporal-ui').ports).toEqual(['127.0.0.1:8080:8080']);
    const metricsPort = environmentOf('worker').WORKER_METRICS_PORT;
    expect(metricsPort).toMatch(/^\d+$/);
    // Replicas of the worker would fight over a host port, so none is published.
    expect(service('worker').ports).toBeUndefined();
    expect(service('worker').expose).toEqual([metricsPort]);
  });

  it('believes exactly the one proxy in front of the API, which overwrites whatever X-Forwarded-For a client sends', () => {
    const nginx = read('temporal-docker/nginx.conf');
    expect(nginx).toMatch(/^\s*listen 80;$/m);
    expect(nginx).toMatch(new RegExp(`^\\s*server api:${environmentOf('api').PORT} resolve;$`, 'm'));
    expect(nginx).toMatch(/^\s*proxy_set_header X-Forwarded-For \$remote_addr;$/m);
    expect(nginx).not.toContain('$proxy_add_x_forwarded_for');
    expect(nginx).toMatch(/^\s*proxy_set_header Host \$host;$/m);
    // Room for a hand-over photo (5 MB) and its multipart framing, streamed through unbuffered.
    expect(nginx).toMatch(/^\s*client_max_body_size 6m;$/m);
    expect(nginx).toMatch(/^\s*proxy_request_buffering off;$/m);
    expect(loadSettings(environmentOf('api', LIVE_OPERATOR)).trustProxy).toBe(1);
    // The worker serves no HTTP to clients: it needs no proxy setting.
    expect(environmentOf('worker').TRUST_PROXY).toBeUndefined();
  });

  it('sends a read, or a request with an Idempotency-Key, to another replica when one dies under it, and nothing else', () => {
    const nginx = read('temporal-docker/nginx.conf');
    const location = (prefix: string) => nginx.slice(nginx.indexOf(`location ${prefix} {`)).split(/\n    }\n/)[0] as string;
    // Reads: nginx repeats GET and HEAD on the next replica; a POST only if it never reached one.
    expect(location('/')).toMatch(/^\s*proxy_next_upstream error timeout http_502;$/m);
    expect(location('/')).toMatch(/^\s*if \(\$http_idempotency_key != ""\) \{\s*rewrite \^ \/_keyed\$uri last;/m);
    // Keyed requests: buffered, so they can be sent again whole, and repeated whatever the method.
    expect(location('/_keyed/')).toMatch(/^\s*internal;$/m);
    expect(location('/_keyed/')).toMatch(/^\s*proxy_next_upstream error timeout http_502 non_idempotent;$/m);
    expect(location('/_keyed/')).not.toContain('proxy_request_buffering off');
    expect(nginx.match(/non_idempotent/g)).toHaveLength(1);
    // `set` before the rewrite whose `break` ends the rewrite directives.
    expect(location('/_keyed/').indexOf('set $api')).toBeLessThan(location('/_keyed/').indexOf('rewrite ^'));
  });

  it("has the topology's HAProxy retry the same, on another API process", async () => {
    const { haproxyConfig } = await import('../../scripts/lib/topology.mjs');
    const config: string = haproxyConfig({ port: 3999, statsPort: 3998, apis: [{ name: 'api-1', port: 4001 }, { name: 'api-2', port: 4002 }] });
    expect(config).toMatch(/^\s*option redispatch 1$/m);
    expect(config).toMatch(/^\s*retry-on conn-failure empty-response junk-response response-timeout$/m);
    expect(config).toMatch(/^\s*acl safe_to_repeat method GET HEAD OPTIONS PUT DELETE$/m);
    expect(config).toMatch(/^\s*acl keyed req.hdr\(idempotency-key\) -m found$/m);
    expect(config).toMatch(/^\s*http-request disable-l7-retry unless safe_to_repeat or keyed$/m);
  });

  it('checks the health of every long-running part and starts the service only on a prepared stack', () => {
    expect(healthTest('temporal')).toMatch(/temporal operator cluster health/);
    expect(healthTest('temporal-postgresql')).toMatch(/pg_isready/);
    expect(healthTest('app-postgresql')).toMatch(/pg_isready -U delivery -d delivery/);
    expect(healthTest('api')).toContain(`http://127.0.0.1:${environmentOf('api').PORT}/readyz`);
    expect(healthTest('worker')).toContain(`http://127.0.0.1:${environmentOf('worker').WORKER_METRICS_PORT}/metrics`);
    expect(service('migrate').depends_on?.['app-postgresql']).toEqual({ condition: 'service_healthy' });
    for (const name of ['api', 'worker']) {
      expect(service(name).depends_on).toEqual({
        migrate: { condition: 'service_completed_successfully' },
        'temporal-setup': { condition: 'service_completed_successfully' },
      });
    }
  });

  it('sets only settings the code reads, and every one a production process needs', () => {
    const known = settingNames();
    for (const name of ['api', 'worker', 'migrate']) {
      const unknown = Object.keys(environmentOf(name)).filter((variable) => !known.has(variable));
      expect({ service: name, unknown }).toEqual({ service: name, unknown: [] });
    }
    for (const name of ['api', 'worker']) {
      const env = environmentOf(name, LIVE_OPERATOR);
      for (const required of ['NODE_ENV', 'SITE_URL', 'DATABASE_URL', 'TEMPORAL_ADDRESS', 'TEMPORAL_NAMESPACE', 'TEMPORAL_TASK_QUEUE']) {
        expect({ service: name, [required]: env[required] }).toEqual({ service: name, [required]: expect.stringMatching(/.+/) });
      }
      const settings = loadSettings(env);
      expect(settings.nodeEnv).toBe('production');
      expect(new URL(settings.databaseUrl).hostname).toBe('app-postgresql');
      expect(sandboxedInProduction(settings)).toEqual([]);
    }
    expect(loadSettings(environmentOf('worker', LIVE_OPERATOR)).workerMetricsPort).toBeGreaterThan(0);
    expect(loadSettings(environmentOf('api', LIVE_OPERATOR)).port).toBe(3000);
  });

  it('defaults nothing to a stand-in: the sandbox gateway, the SMS outbox, mail files or the opt-in', () => {
    const text = read('temporal-docker/docker-compose.yml');
    for (const variable of ['PAYMENT_GATEWAY', 'SMS_PROVIDER', 'CALL_MASKING', 'SMTP_URL', 'SITE_URL', 'METRICS_TOKEN']) {
      expect({ variable, defaulted: new RegExp(`\\$\\{${variable}:?-`).test(text) }).toEqual({ variable, defaulted: false });
    }
    for (const name of ['api', 'worker']) {
      const env = environmentOf(name);
      expect({ service: name, PAYMENT_GATEWAY: env.PAYMENT_GATEWAY, SMS_PROVIDER: env.SMS_PROVIDER, SMTP_URL: env.SMTP_URL }).toEqual({
        service: name,
        PAYMENT_GATEWAY: '',
        SMS_PROVIDER: '',
        SMTP_URL: '',
      });
      expect(env.ALLOW_SANDBOX_IN_PRODUCTION).toBe('false');
      expect(Object.values(env)).not.toEqual(expect.arrayContaining(['sandbox']));
      expect(Object.values(env)).not.toEqual(expect.arrayContaining(['outbox']));
    }
  });

  it('refuses to start the API and the worker when the operator sets nothing, naming each variable', () => {
    for (const name of ['api', 'worker']) {
      const error = refusal(environmentOf(name));
      expect({ service: name, refused: error.problems.map((p) => p.variable) }).toEqual({
        service: name,
        refused: ['SITE_URL', 'PAYMENT_GATEWAY', 'SMS_PROVIDER', 'CALL_MASKING', 'SMTP_URL', 'METRICS_TOKEN'],
      });
    }
    // Sandbox and outbox named outright are refused too, without the opt-in.
    const named = refusal(environmentOf('api', { ...LIVE_OPERATOR, PAYMENT_GATEWAY: 'sandbox', SMS_PROVIDER: 'outbox' }));
    expect(named.problems.map((p) => p.variable)).toEqual(['PAYMENT_GATEWAY', 'SMS_PROVIDER']);
  });

  it('keeps photos on the volume every API container mounts, unless the operator names a bucket', () => {
    const api = service('api');
    expect(api.volumes).toContain(`app-data:${environmentOf('api').DATA_DIR}`);
    expect(loadSettings(environmentOf('api', STAGING_OPERATOR)).photoStore).toBe('local');
    expect(loadSettings(environmentOf('api', LIVE_OPERATOR))).toMatchObject({ photoStore: 's3', s3Bucket: LIVE_PROVIDERS.S3_BUCKET });
  });

  it('runs a staging stack on the stand-ins with ALLOW_SANDBOX_IN_PRODUCTION=true alone', () => {
    for (const name of ['api', 'worker']) {
      const settings = loadSettings(environmentOf(name, STAGING_OPERATOR));
      expect({ service: name, sandboxed: sandboxedInProduction(settings) }).toEqual({ service: name, sandboxed: ['payments', 'texts', 'calls', 'mail'] });
    }
  });

  it('connects the service to its own database with the credentials that database is created with', () => {
    const db = environmentOf('app-postgresql');
    const url = new URL(environmentOf('api').DATABASE_URL ?? '');
    expect({ user: url.username, password: url.password, database: url.pathname.slice(1), port: url.port }).toEqual({
      user: db.POSTGRES_USER,
      password: db.POSTGRES_PASSWORD,
      database: db.POSTGRES_DB,
      port: '5432',
    });
    expect(environmentOf('migrate').DATABASE_URL).toBe(environmentOf('api').DATABASE_URL);
    expect(environmentOf('worker').DATABASE_URL).toBe(environmentOf('api').DATABASE_URL);
  });
});

describe('the Dockerfile', () => {
  const dockerfile = DockerfileParser.parse(read('Dockerfile'));
  const instructions = dockerfile.getInstructions();
  /** Instructions grouped by build stage, each stage starting at its FROM. */
  const stages: Instruction[][] = [];
  for (const instruction of instructions) {
    if (instruction.getKeyword() === 'FROM') stages.push([]);
    stages[stages.length - 1]?.push(instruction);
  }
  const final = stages[stages.length - 1] ?? [];
  const args = (instruction: Instruction) => instruction.getArgumentsContent() ?? '';
  const flag = (instruction: Instruction, name: string) =>
    (instruction as ModifiableInstruction).getFlags().find((f) => f.getName() === name)?.getValue() ?? null;
  const ofKind = (stage: Instruction[], keyword: string) => stage.filter((instruction) => instruction.getKeyword() === keyword);
  const env = Object.fromEntries(
    dockerfile.getENVs().flatMap((instruction) => instruction.getProperties().map((p) => [p.getName(), p.getValue() ?? ''])),
  ) as Env;

  it('builds in stages on Debian Node 24 LTS (the SDK native bridge has no musl build)', () => {
    const froms = dockerfile.getFROMs();
    expect(froms.length).toBeGreaterThanOrEqual(2);
    for (const from of froms) {
      expect(from.getImage()).toBe('node:24-bookworm-slim');
      expect(from.getBuildStage()).toMatch(/^[a-z]+$/);
    }
    const buildStage = froms[0]?.getBuildStage();
    const copiesFromBuild = ofKind(final, 'COPY').some((copy) => flag(copy, 'from') === buildStage);
    expect(copiesFromBuild).toBe(true);
  });

  it('installs from the lockfile, and compiles the source tree and builds the workflow bundle at build time', () => {
    const build = stages[0] ?? [];
    const runs = ofKind(build, 'RUN').map(args);
    expect(runs.some((run) => /\bnpm (ci|install)\b/.test(run))).toBe(true);
    expect(runs.some((run) => /\bnpm run build\b/.test(run))).toBe(true);
    expect(runs.some((run) => /npm prune --omit=dev/.test(run))).toBe(true);
    const pkg = JSON.parse(read('package.json')) as { scripts: Record<string, string> };
    // tsx only here, at build time: the commands run what the build compiles into dist/.
    expect(pkg.scripts.build).toMatch(/\bnode scripts\/build\.mjs dist\b/);
    expect(pkg.scripts.build).toMatch(/\bscripts\/bundle-workflows\.ts dist\/workflow-bundle\.js\b/);
    const workdir = args(ofKind(build, 'WORKDIR')[0] as Instruction);
    expect(env.WORKFLOW_BUNDLE).toBe(path.posix.join(workdir, 'dist/workflow-bundle.js'));
  });

  it('runs as a non-root user', () => {
    const users = ofKind(final, 'USER').map(args);
    expect(users.length).toBeGreaterThan(0);
    expect(users[users.length - 1]).not.toMatch(/^(root|0)(:|$)/);
  });

  it('reports liveness on /healthz at PORT and starts the compiled API with node, not npm or tsx', () => {
    const healthchecks = ofKind(final, 'HEALTHCHECK');
    expect(healthchecks).toHaveLength(1);
    const healthcheck = healthchecks[0] as Instruction;
    expect(flag(healthcheck, 'interval')).toMatch(/^\d+s$/);
    expect(flag(healthcheck, 'timeout')).toMatch(/^\d+s$/);
    expect(args(healthcheck)).toContain("'http://127.0.0.1:' + (process.env.PORT || 3000) + '/healthz'");
    expect(env.PORT).toBe('3000');
    expect(ofKind(final, 'EXPOSE').map(args).join(' ').split(/\s+/)).toEqual(expect.arrayContaining([env.PORT, '9464']));
    const cmd = ofKind(final, 'CMD');
    expect(cmd).toHaveLength(1);
    expect(args(cmd[0] as Instruction)).toBe('["node", "--max-semi-space-size=4", "dist/api/main.js"]');
    expect(args(cmd[0] as Instruction)).not.toMatch(/tsx/);
    expect(existsSync(path.join(root, compiledFrom('dist/api/main.js')))).toBe(true);
  });

  it('installs the CA certificates Temporal Cloud TLS needs', () => {
    expect(ofKind(final, 'RUN').map(args).join('\n')).toMatch(/apt-get install [^\n]*ca-certificates/);
  });

  it('sets only settings the code reads, in production mode', () => {
    const known = settingNames();
    expect(Object.keys(env).filter((name) => !known.has(name))).toEqual([]);
    expect(env.NODE_ENV).toBe('production');
  });

  it('bakes in no stand-in: the deployment chooses the gateway, the SMS provider, SMTP and the photo store', () => {
    for (const variable of ['PAYMENT_GATEWAY', 'SMS_PROVIDER', 'SMTP_URL', 'ALLOW_SANDBOX_IN_PRODUCTION', 'RATE_LIMIT_STORE', 'SESSION_SECRET', 'METRICS_TOKEN', 'PHOTO_STORE']) {
      expect({ variable, value: env[variable] }).toEqual({ variable, value: undefined });
    }
    const error = refusal({ ...env, DATABASE_URL: 'postgres://delivery@db/delivery', SITE_URL: 'https://deliveries.example.com.gh' });
    expect(error.problems.map((p) => p.variable)).toEqual(['PAYMENT_GATEWAY', 'SMS_PROVIDER', 'CALL_MASKING', 'SMTP_URL', 'METRICS_TOKEN', 'PHOTO_STORE']);
  });

  it('leaves the host’s node_modules, data and history out of the build context', () => {
    const ignored = read('.dockerignore')
      .split('\n')
      .map((line) => line.trim())
      .filter((line) => line && !line.startsWith('#'));
    expect(ignored).toEqual(expect.arrayContaining(['node_modules', '.data', 'dist', '.git', '.env']));
    for (const needed of ['package.json', 'package-lock.json', 'tsconfig.json', 'workflows', 'scripts', 'api', 'workers']) {
      expect(ignored).not.toContain(needed);
    }
  });
});
