// Webhook receivers the tests start on loopback: one that holds every request until released (a
// receiver that hangs), so fairness can be checked while it hangs and the test still ends cleanly.
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/**
 * A receiver that answers nothing until `release()`, then 200 to every request held and to every
 * one after. Its server is pushed on `servers`, for the test file to close after each test.
 */
export async function holdingReceiver(servers: Server[]): Promise<{ url: string; got: Received[]; release(): void }> {
  const got: Received[] = [];
  const waiting: ServerResponse[] = [];
  let open = false;
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      got.push({ path: req.url!, headers: req.headers, body });
      if (open) res.writeHead(200).end();
      else waiting.push(res);
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  server.unref();
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    got,
    release() {
      open = true;
      for (const res of waiting.splice(0)) res.writeHead(200).end();
    },
  };
}
