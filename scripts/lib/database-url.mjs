// A DATABASE_URL given to `npm run topology`, checked before anything is started on it, so a URL
// that cannot work is told in one sentence instead of failing deep inside the Temporal schema step.
import pg from 'pg';

/** The URL without its password, to name it in a message. */
export function shownUrl(databaseUrl) {
  try {
    const url = new URL(databaseUrl);
    const user = url.username ? `${url.username}${url.password ? ':•••' : ''}@` : '';
    return `${url.protocol}//${user}${url.host}${url.pathname}`;
  } catch {
    return '(not a URL)';
  }
}

const FORM = 'postgres://user[:password]@host[:port]/database';

/**
 * Whether the URL reaches PostgreSQL through its Unix socket (no host, `host=/run/postgresql`, or
 * a host that is a folder), as peer authentication needs. The Temporal server connects over TCP.
 */
function throughSocket(databaseUrl) {
  if (/^postgres(ql)?:\/\/([^/?#]*@)?(\/|$)/i.test(databaseUrl) || /[?&]host=(\/|%2F)/i.test(databaseUrl)) return true;
  try {
    return decodeURIComponent(new URL(databaseUrl).hostname).startsWith('/');
  } catch {
    return false;
  }
}

/**
 * Resolves when PostgreSQL at `databaseUrl` takes a connection, and its user may create the
 * `databases` the Temporal server needs that are not there yet; rejects with one sentence saying
 * what is wrong otherwise. A URL without a password is fine (a server that trusts the user).
 * @param {string} databaseUrl
 * @param {{ databases?: string[], timeoutMs?: number }} [options]
 * @returns {Promise<void>}
 */
export async function checkDatabaseUrl(databaseUrl, { databases = [], timeoutMs = 5_000 } = {}) {
  if (throughSocket(databaseUrl)) {
    throw new Error(
      'DATABASE_URL goes through the Unix socket, and the Temporal server connects over TCP only: name a host that trusts the user ' +
        `or give its password, as in ${FORM}.`,
    );
  }
  let url;
  try {
    url = new URL(databaseUrl);
  } catch {
    throw new Error(`DATABASE_URL is not a URL: write it as ${FORM}.`);
  }
  if (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:') {
    throw new Error(`DATABASE_URL must start with postgres:// or postgresql://, not ${url.protocol}//.`);
  }
  if (!url.hostname) throw new Error(`DATABASE_URL names no host: write it as ${FORM}.`);
  const user = decodeURIComponent(url.username);
  if (!user) throw new Error(`DATABASE_URL names no user (${shownUrl(databaseUrl)}): the Temporal server connects as one.`);
  const where = `${url.hostname}:${url.port || 5432}`;
  const cannot = (reason) => new Error(`DATABASE_URL cannot be used (${shownUrl(databaseUrl)}): ${reason}.`);
  const client = new pg.Client({ connectionString: databaseUrl, connectionTimeoutMillis: timeoutMs });
  const startedAt = Date.now();
  try {
    await client.connect();
  } catch (error) {
    const code = error?.code;
    const reason =
      code === 'ECONNREFUSED' ? `nothing listens at ${where}`
      : code === 'ENOTFOUND' || code === 'EAI_AGAIN' ? `the host ${url.hostname} is not known`
      : code === '28P01' && !url.password ? `PostgreSQL at ${where} asks ${user} for a password and the URL gives none`
      : code === '28P01' ? `PostgreSQL at ${where} refused the password of ${user}`
      : code === '28000' ? `PostgreSQL at ${where} refused ${user}: ${error.message}`
      : code === '3D000' ? `the database ${decodeURIComponent(url.pathname.slice(1))} does not exist at ${where}`
      : /password/i.test(String(error?.message)) ? `PostgreSQL at ${where} asks ${user} for a password and the URL gives none`
      : /timeout expired/i.test(String(error?.message)) || Date.now() - startedAt >= timeoutMs ? `nothing answered at ${where} within ${timeoutMs / 1000} s`
      : `connecting to ${where} failed: ${error?.message ?? error}`;
    await client.end().catch(() => undefined);
    throw cannot(reason);
  }
  try {
    const { rows } = await client.query(
      `select coalesce(array_agg(wanted) filter (where not exists (select 1 from pg_database where datname = wanted)), '{}') as missing,
              (select rolcreatedb or rolsuper from pg_roles where rolname = current_user) as may_create
         from unnest($1::text[]) as wanted`,
      [databases],
    );
    const { missing, may_create: mayCreate } = rows[0];
    if (missing.length > 0 && !mayCreate) {
      throw cannot(`${user} may not create databases, and the Temporal server needs ${missing.join(' and ')} there (grant it CREATEDB, or create them)`);
    }
  } finally {
    await client.end().catch(() => undefined);
  }
}
