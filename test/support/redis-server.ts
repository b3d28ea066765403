import { spawn, type ChildProcess } from 'node:child_process';
import Redis from 'ioredis';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';

/** A free loopback port (closed again before use; good enough on a test machine). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

export type RedisServer = {
  url: string;
  port: number;
  kill(): Promise<void>;
  start(): Promise<void>;
  freeze(): void;
  thaw(): void;
  /** How many connections are subscribed to `channel` (PUBSUB NUMSUB): a subscription has reached this Redis. */
  subscribers(channel: string): Promise<number>;
};

/** A redis-server of the test's own on a free port, with nothing persisted; killed and restarted at will. */
export async function startRedisServer(): Promise<RedisServer> {
  const port = await freePort();
  let child: ChildProcess | undefined;
  const start = () =>
    new Promise<void>((resolve, reject) => {
      const process = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      child = process;
      let output = '';
      process.stdout!.on('data', (d: Buffer) => {
        output += d;
        if (output.includes('Ready to accept connections')) resolve();
      });
      process.once('exit', (code) => reject(new Error(`redis-server exited with ${code}: ${output}`)));
    });
  const kill = () =>
    new Promise<void>((resolve) => {
      if (!child || child.exitCode !== null || child.signalCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill('SIGKILL');
    });
  await start();
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    kill,
    start,
    // A process stopped, its socket open: Redis as a dead network path looks to clients.
    freeze: () => child?.kill('SIGSTOP'),
    thaw: () => child?.kill('SIGCONT'),
    async subscribers(channel) {
      const client = new Redis(`redis://127.0.0.1:${port}`, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
      try {
        await client.connect();
        const [, count] = (await client.pubsub('NUMSUB', channel)) as [string, number];
        return Number(count);
      } finally {
        client.disconnect();
      }
    },
  };
}
