// The floor of a position ping: a bare `node:http` server that reads the body and answers 204,
// nothing else. Runs in a process of its own, like the API. Prints {"port": N} once it listens.
import http from 'node:http';

const server = http.createServer((req, res) => {
  req.resume();
  req.once('end', () => {
    res.statusCode = 204;
    res.end();
  });
});
server.keepAliveTimeout = 65_000;
server.listen(0, '127.0.0.1', () => process.stdout.write(`${JSON.stringify({ port: server.address().port })}\n`));
const stop = () => server.close(() => process.exit(0));
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
