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

/**
 * Resolves when PostgreSQL at `databaseUrl` takes a connection; rejects with one sentence saying
 * what is wrong otherwise. A URL without a password is fine (trust or peer authentication).
 */
export async function checkDatabaseUrl(databaseUrl, { timeoutMs = 5_000 } = {}) {
  let url;
  try {
    url = new URL(databaseUrl);
  } catch {
    throw new Error('DATABASE_URL is not a URL: write it as postgres://user[:password]@host[:port]/database.');
  }
  if (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:') {
    throw new Error(`DATABASE_URL must start with postgres:// or postgresql://, not ${url.protocol}//.`);
  }
  if (!url.hostname) throw new Error('DATABASE_URL names no host: write it as postgres://user[:password]@host[:port]/database.');
  if (!decodeURIComponent(url.username)) throw new Error(`DATABASE_URL names no user (${shownUrl(databaseUrl)}): the Temporal server connects as one.`);
  const where = `${url.hostname}:${url.port || 5432}`;
  const client = new pg.Client({ connectionString: databaseUrl, connectionTimeoutMillis: timeoutMs });
  try {
    await client.connect();
  } catch (error) {
    const code = error?.code;
    const reason =
      code === 'ECONNREFUSED' ? `nothing listens at ${where}`
      : code === 'ENOTFOUND' || code === 'EAI_AGAIN' ? `the host ${url.hostname} is not known`
      : code === '28P01' && !url.password ? `PostgreSQL at ${where} asks ${decodeURIComponent(url.username)} for a password and the URL gives none`
      : code === '28P01' ? `PostgreSQL at ${where} refused the password of ${decodeURIComponent(url.username)}`
      : code === '28000' ? `PostgreSQL at ${where} refused ${decodeURIComponent(url.username)}: ${error.message}`
      : code === '3D000' ? `the database ${decodeURIComponent(url.pathname.slice(1))} does not exist at ${where}`
      : /password/i.test(String(error?.message)) ? `PostgreSQL at ${where} asks ${decodeURIComponent(url.username)} for a password and the URL gives none`
      : `connecting to ${where} failed: ${error?.message ?? error}`;
    throw new Error(`DATABASE_URL cannot be used (${shownUrl(databaseUrl)}): ${reason}.`);
  } finally {
    await client.end().catch(() => undefined);
  }
}
