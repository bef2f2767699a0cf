import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  headers: IncomingHttpHeaders;
  /** The body exactly as it arrived (signatures are over these bytes). */
  body: string;
}

export interface RecordingServer {
  /** `http://127.0.0.1:<port>/hooks`, allowed as a callback URL outside production. */
  url: string;
  requests: RecordedRequest[];
  close(): Promise<void>;
}

/**
 * A partner endpoint on loopback that answers 200 to every request and keeps each one, for tests
 * that need callbacks to go out (and be delivered) whoever's secret signed them. Tests of the
 * receiving side itself use webhook-test-receiver.ts, which checks signatures.
 */
export async function startRecordingServer(): Promise<RecordingServer> {
  const requests: RecordedRequest[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      requests.push({ headers: req.headers, body });
      res.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
    requests,
    close: async () => {
      // The sender keeps connections alive; close them, or close() waits for them.
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
