#!/bin/sh
# Creates the Temporal server's two PostgreSQL databases and brings their schemas to the version
# the SQL tool ships with, as the server's own auto-setup image does. Safe to run again: an
# existing database is kept and only missing schema versions are applied. Run by the compose
# stack (temporal-schema, in the admin-tools image) and by scripts/lib/temporal-server.mjs (with
# the `sql` tool built by `go install`), with the same variables as config/temporal-sql.yaml.
set -eu
# The password may be empty (trust or peer authentication, as on many developers' machines); it
# must still be given, so a forgotten variable is told apart from a password-less database.
: "${POSTGRES_SEEDS:?}" "${POSTGRES_USER:?}" "${POSTGRES_PWD?}"
SQL_TOOL="${SQL_TOOL:-temporal-sql-tool}"
DB_PORT="${DB_PORT:-5432}"

sql() {
  "$SQL_TOOL" --plugin postgres12 --ep "$POSTGRES_SEEDS" -p "$DB_PORT" -u "$POSTGRES_USER" --pw "$POSTGRES_PWD" "$@"
}

# The schema files are the ones embedded in the tool (--schema-name), so the schema always
# matches the tool's (and the server's) version.
setup() {
  database="$1"
  schema="$2"
  if ! output=$(sql --db "$database" create-database 2>&1); then
    case "$output" in
      *"already exists"*) echo "database $database already exists" ;;
      *) echo "$output" >&2; exit 1 ;;
    esac
  fi
  sql --db "$database" setup-schema -v 0.0 >/dev/null
  sql --db "$database" update-schema --schema-name "$schema" >/dev/null
  echo "database $database: schema $schema up to date"
}

setup "${DBNAME:-temporal}" postgresql/v12/temporal
setup "${VISIBILITY_DBNAME:-temporal_visibility}" postgresql/v12/visibility
