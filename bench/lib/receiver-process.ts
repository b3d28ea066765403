/**
 * A webhook receiver in a process of its own (so that the load generator does not slow it down):
 * answers 204 to every POST and remembers, per failure (keyed by external_id), when its first and
 * its last delivery arrived (Date.now()) and how many did (one per webhook configuration).
 * GET /arrivals returns them. Prints its URL when listening.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

const firstArrival = new Map<string, number>();
const lastArrival = new Map<string, number>();
const counts = new Map<string, number>();
let deliveries = 0;

const server = createServer((req, res) => {
  if (req.method === 'GET') {
    res.setHeader('content-type', 'application/json');
    res.end(
      JSON.stringify({
        deliveries,
        arrivals: Object.fromEntries(firstArrival),
        lastArrivals: Object.fromEntries(lastArrival),
        counts: Object.fromEntries(counts),
      }),
    );
    return;
  }
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const at = Date.now();
    deliveries++;
    const { external_id } = JSON.parse(Buffer.concat(chunks).toString()) as { external_id: string };
    if (!firstArrival.has(external_id)) firstArrival.set(external_id, at);
    lastArrival.set(external_id, at);
    counts.set(external_id, (counts.get(external_id) ?? 0) + 1);
    res.statusCode = 204;
    res.end();
  });
});
server.keepAliveTimeout = 65_000;
server.listen(0, '127.0.0.1', () => console.log(`http://127.0.0.1:${(server.address() as AddressInfo).port}`));
