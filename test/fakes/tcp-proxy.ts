import net, { type AddressInfo } from 'node:net';
import { Transform } from 'node:stream';

/**
 * A TCP relay on loopback in front of a real service, so a test can take the service "off the
 * network" (every connection cut, new ones refused) and bring it back on the same port, or make
 * it hang like a frozen process (connections stay open, nothing comes back).
 */
export interface TcpProxy {
  port: number;
  /** Cuts every open connection and stops listening. */
  cut(): Promise<void>;
  /** Stops relaying in both directions without closing anything; new connections are held too. */
  freeze(): void;
  /**
   * Relays again after `freeze`, as when a frozen process resumes: what was held meanwhile goes
   * through, in order (requests the client has given up on reach the service late).
   */
  thaw(): void;
  /**
   * The next request whose bytes match `pattern` reaches the service, but its answer is lost: the
   * connection it came on is cut as the answer arrives (a COMMIT done, the client never told).
   * `then` runs at that moment.
   */
  loseNextAnswerTo(pattern: RegExp, then?: () => void): void;
  /**
   * Counts, from now on, the times `pattern` (global) occurs in what clients send the service: the
   * statements naming a table, say. The returned function reads the count.
   */
  count(pattern: RegExp): () => number;
  /** Listens again on the same port. */
  restore(): Promise<void>;
  close(): Promise<void>;
}

export async function startTcpProxy(targetHost: string, targetPort: number): Promise<TcpProxy> {
  const sockets = new Set<net.Socket>();
  /** Each relayed connection's way through, to be joined again after a freeze. */
  const relays = new Set<{ client: net.Socket; upstream: net.Socket; answers: Transform }>();
  /** Connections accepted while frozen, not yet relayed. */
  const held = new Set<net.Socket>();
  let frozen = false;
  let losing: RegExp | null = null;
  let onLost: (() => void) | undefined;
  const counters: { pattern: RegExp; seen: number }[] = [];
  const track = (socket: net.Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  };
  const listen = (port: number): Promise<net.Server> =>
    new Promise((resolve, reject) => {
      const server = net.createServer((client) => {
        track(client);
        if (frozen) {
          client.pause();
          held.add(client);
          client.once('close', () => held.delete(client));
          return;
        }
        relay(client);
      });
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => resolve(server));
    });
  /** Joins a client's connection to a new one to the service. */
  const relay = (client: net.Socket) => {
    const upstream = net.connect(targetPort, targetHost);
    track(upstream);
    let answerLost = false;
    client.on('data', (chunk: Buffer) => {
      for (const counter of counters) counter.seen += chunk.toString('latin1').match(counter.pattern)?.length ?? 0;
      if (losing && losing.test(chunk.toString('latin1'))) {
        losing = null;
        answerLost = true;
      }
    });
    const answers = new Transform({
      transform(chunk, _encoding, done) {
        if (!answerLost) return done(null, chunk);
        answerLost = false;
        client.destroy();
        upstream.destroy();
        onLost?.();
        done();
      },
    });
    client.pipe(upstream).pipe(answers).pipe(client);
    client.on('error', () => upstream.destroy());
    upstream.on('error', () => client.destroy());
    const way = { client, upstream, answers };
    relays.add(way);
    client.once('close', () => relays.delete(way));
  };

  let server: net.Server | null = await listen(0);
  const port = (server.address() as AddressInfo).port;
  const cut = async () => {
    const closing = server;
    server = null;
    for (const socket of sockets) socket.destroy();
    if (closing) await new Promise((resolve) => closing.close(resolve));
  };
  return {
    port,
    cut,
    freeze() {
      frozen = true;
      for (const socket of sockets) {
        socket.unpipe();
        socket.pause();
      }
    },
    thaw() {
      frozen = false;
      for (const { client, upstream, answers } of relays) {
        client.pipe(upstream);
        upstream.pipe(answers);
        client.resume();
        upstream.resume();
      }
      for (const client of held) {
        held.delete(client);
        relay(client);
        client.resume();
      }
    },
    loseNextAnswerTo(pattern, then) {
      losing = pattern;
      onLost = then;
    },
    count(pattern) {
      const counter = { pattern, seen: 0 };
      counters.push(counter);
      return () => counter.seen;
    },
    async restore() {
      server ??= await listen(port);
    },
    close: cut,
  };
}
