// The HTTP floors: a bare Express handler returning a constant JSON (for the quotes scenario)
// and a bare Express + `pg` handler reading one delivery row by primary key (for the reads).
// Runs in a process of its own, like the API. Prints {"port": N} once it listens.
// Environment: DATABASE_URL, DATABASE_POOL_MAX.
import express from 'express';
import pg from 'pg';

const QUOTE = { base_fare: 10, distance_km: 7.4, distance_fee: 14.8, service_fee: 2.5, total_fare: 27.3, distance_estimated: true };

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: Number(process.env.DATABASE_POOL_MAX ?? 10) });
const app = express();
app.post('/quote', (_req, res) => {
  res.json(QUOTE);
});
app.get('/deliveries/:id', async (req, res) => {
  const { rows } = await pool.query('select * from deliveries where id = $1', [req.params.id]);
  if (rows.length === 0) res.status(404).json({ error: 'not found' });
  else res.json(rows[0]);
});
const server = app.listen(0, '127.0.0.1', () => {
  server.keepAliveTimeout = 65_000;
  process.stdout.write(`${JSON.stringify({ port: server.address().port })}\n`);
});
const stop = () => server.close(() => void pool.end().then(() => process.exit(0)));
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
