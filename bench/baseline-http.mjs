// The HTTP floors: a bare Express handler returning a constant JSON (for the quotes scenario),
// a bare Express + `pg` handler reading one delivery row by primary key (for the reads), and on
// a port of its own a bare `node:http` handler that reads a body and answers 204 (for the pings).
// Runs in a process of its own, like the API. Prints {"port": N, "barePort": M} once it listens.
// Environment: DATABASE_URL, DATABASE_POOL_MAX.
import http from 'node:http';
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
const bare = http.createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    res.statusCode = 204;
    res.end();
  });
});
const listening = (target) => new Promise((resolve) => target.once('listening', resolve));
const server = app.listen(0, '127.0.0.1');
bare.listen(0, '127.0.0.1');
await Promise.all([listening(server), listening(bare)]);
for (const listener of [server, bare]) listener.keepAliveTimeout = 65_000;
process.stdout.write(`${JSON.stringify({ port: server.address().port, barePort: bare.address().port })}\n`);
const stop = () => {
  bare.close();
  server.close(() => void pool.end().then(() => process.exit(0)));
};
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
