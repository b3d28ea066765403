/**
 * A webhook receiver in a process of its own (so that the load generator does not slow it down):
 * answers 204 to every POST and remembers when each failure's first delivery arrived (Date.now(),
 * keyed by external_id). GET /arrivals returns them. Prints its URL when listening.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

const firstArrival = new Map<string, number>();
let deliveries = 0;

const server = createServer((req, res) => {
  if (req.method === 'GET') {
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ deliveries, arrivals: Object.fromEntries(firstArrival) }));
    return;
  }
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const at = Date.now();
    deliveries++;
    const { external_id } = JSON.parse(Buffer.concat(chunks).toString()) as { external_id: string };
    if (!firstArrival.has(external_id)) firstArrival.set(external_id, at);
    res.statusCode = 204;
    res.end();
  });
});
server.keepAliveTimeout = 65_000;
server.listen(0, '127.0.0.1', () => console.log(`http://127.0.0.1:${(server.address() as AddressInfo).port}`));
