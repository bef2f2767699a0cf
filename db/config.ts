import { defineConfig } from '@mikro-orm/postgresql';
import { Migrator } from '@mikro-orm/migrations';
import * as entities from './entities';
import { migrationsList } from './migrations';

/** MikroORM settings for one database URL. Entities and migrations are listed, not globbed. */
export function ormConfig(databaseUrl: string, poolMax = 10) {
  return defineConfig({
    clientUrl: databaseUrl,
    entities: Object.values(entities).filter((value) => typeof value === 'object'),
    extensions: [Migrator],
    // Migrations are written by hand, so no schema snapshot: MikroORM 7 would introspect the schema
    // after every run that applies one and write it to .snapshot-<db>.json in the working folder.
    migrations: { migrationsList, transactional: true, allOrNothing: true, tableName: 'mikro_orm_migrations', snapshot: false },
    pool: { min: 0, max: poolMax },
    // The read model is written by several processes at once; never trust a stale identity map.
    allowGlobalContext: false,
    forceUtcTimezone: true,
    debug: false,
    discovery: { warnWhenNoEntities: false },
  });
}
