import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';

/**
 * The compose stack and `npm run topology` run one Temporal server config file
 * (temporal-docker/config/temporal-sql.yaml), rendered by the server itself from environment
 * variables. These tests render it with the compose file's variables, through the server binary
 * the topology runs (scripts/lib/temporal-server.mjs; `npm test` passes its path), so a variable
 * renamed on one side fails here rather than in a deployment.
 */
const root = path.resolve(__dirname, '../..');
const dockerDir = path.join(root, 'temporal-docker');
const server = process.env.TEST_TEMPORAL_SERVER;
const compose = parse(readFileSync(path.join(dockerDir, 'docker-compose.yml'), 'utf8'), { merge: true }) as {
  services: Record<string, { image?: string; environment?: Record<string, unknown>; volumes?: string[]; entrypoint?: string[]; depends_on?: Record<string, unknown> }>;
};

/** The compose environment of `name` with every `${NAME:-default}` at its default. */
function composeEnv(name: string): Record<string, string> {
  const raw = compose.services[name]?.environment ?? {};
  return Object.fromEntries(
    Object.entries(raw).map(([key, value]) => [key, String(value ?? '').replace(/\$\{[A-Z0-9_]+:?-([^}]*)\}/g, '$1')]),
  );
}

function render(env: Record<string, string>): any {
  if (!server) throw new Error('Missing TEST_TEMPORAL_SERVER: run through `npm test -- test/topology`.');
  const result = spawnSync(server, ['--config', path.join(dockerDir, 'config'), '--env', 'temporal-sql', 'render-config'], {
    env: { PATH: process.env.PATH, ...env },
    encoding: 'utf8',
  });
  if (result.status !== 0) throw new Error(`render-config failed: ${result.stdout}${result.stderr}`);
  return parse(result.stdout);
}

describe('the one Temporal server config, as compose and the topology run it', () => {
  it('mounts the config and the dynamic config into the server image and starts it with them', () => {
    const temporal = compose.services.temporal!;
    expect(temporal.image).toBe('temporalio/server:1.29.1');
    expect(temporal.volumes).toEqual([
      './config/temporal-sql.yaml:/etc/temporal/config/temporal-sql.yaml:ro',
      './dynamicconfig:/etc/temporal/config/dynamicconfig:ro',
    ]);
    expect(temporal.entrypoint?.join(' ')).toContain('temporal-server --root /etc/temporal --config config --env temporal-sql --allow-no-auth start');
    expect(temporal.depends_on).toMatchObject({ 'temporal-schema': { condition: 'service_completed_successfully' } });
    expect(existsSync(path.join(dockerDir, composeEnv('temporal').DYNAMIC_CONFIG_FILE_PATH!.replace(/^config\//, '')))).toBe(true);
    // The schema job connects with exactly the server's credentials.
    const schema = composeEnv('temporal-schema');
    expect(composeEnv('temporal')).toMatchObject(schema);
    expect(compose.services['temporal-schema']!.volumes).toEqual(['./setup-temporal-schema.sh:/setup-temporal-schema.sh:ro']);
  });

  it('renders the compose variables into PostgreSQL persistence on the compose database', () => {
    const config = render({ ...composeEnv('temporal'), TEMPORAL_BROADCAST_ADDRESS: '172.18.0.5' });
    for (const [store, database] of [['default', 'temporal'], ['visibility', 'temporal_visibility']] as const) {
      expect(config.persistence.datastores[store].sql).toMatchObject({
        pluginName: 'postgres12',
        databaseName: database,
        connectAddr: 'temporal-postgresql:5432',
        user: 'temporal',
        // render-config masks every password (the compose file's matches its database's: deploy-files.test.ts).
        password: '******',
      });
    }
    expect(config.services.frontend.rpc).toMatchObject({ grpcPort: 7233, bindOnIP: '0.0.0.0' });
    expect(config.global.membership.broadcastAddress).toBe('172.18.0.5');
    expect(config.dynamicConfigClient.filepath).toBe('config/dynamicconfig/production-sql.yaml');
  });

  it('renders the topology variables into its own ports and databases', () => {
    const config = render({
      POSTGRES_SEEDS: '127.0.0.1',
      DB_PORT: '54339',
      POSTGRES_USER: 'postgres',
      POSTGRES_PWD: 'postgres',
      DBNAME: 'topology_temporal',
      VISIBILITY_DBNAME: 'topology_visibility',
      FRONTEND_GRPC_PORT: '7433',
      HISTORY_MEMBERSHIP_PORT: '21000',
      DYNAMIC_CONFIG_FILE_PATH: path.join(dockerDir, 'dynamicconfig', 'production-sql.yaml'),
    });
    expect(config.persistence.datastores.default.sql).toMatchObject({ databaseName: 'topology_temporal', connectAddr: '127.0.0.1:54339' });
    expect(config.persistence.datastores.visibility.sql.databaseName).toBe('topology_visibility');
    expect(config.services.frontend.rpc).toMatchObject({ grpcPort: 7433, bindOnIP: '127.0.0.1' });
    expect(config.services.history.rpc.membershipPort).toBe(21000);
    expect(config.clusterMetadata.clusterInformation.active.rpcAddress).toBe('127.0.0.1:7433');
  });

  it('refuses to render without a PostgreSQL host', () => {
    expect(() => render({ POSTGRES_USER: 'u', POSTGRES_PWD: 'p' })).toThrow(/POSTGRES_SEEDS must name the PostgreSQL host/);
  });
});
