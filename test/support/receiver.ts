import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export type ReceivedRequest = { headers: IncomingHttpHeaders; body: string; at: number };
export type Reply = { status: number; headers?: Record<string, string>; body?: string };

/** A webhook receiver on loopback that records every request and answers as told. */
export async function startReceiver(reply: (request: ReceivedRequest, index: number) => Reply | Promise<Reply> = () => ({ status: 200 })) {
  const requests: ReceivedRequest[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const request = { headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), at: Date.now() };
      requests.push(request);
      const answer = await reply(request, requests.length - 1);
      res.writeHead(answer.status, answer.headers).end(answer.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export type Receiver = Awaited<ReturnType<typeof startReceiver>>;

/** A receiver for a whole describe block, as `useReceiver` gives it. */
export type ReceiverFixture = {
  readonly url: string;
  /** What reached it in the current test. */
  readonly requests: ReceivedRequest[];
  /** How it answers the current test's requests (`index`: the request's place in the test); `initial` again before each test. */
  answer: (index: number, request: ReceivedRequest) => Reply | Promise<Reply>;
};

/**
 * Registers beforeAll/afterAll hooks that start a receiver for the describe block and close it,
 * and a beforeEach that forgets the previous test's requests and answers `initial` again.
 */
export function useReceiver(initial: Reply = { status: 200 }): ReceiverFixture {
  let receiver: Receiver | undefined;
  const started = (): Receiver => {
    if (!receiver) throw new Error('the receiver is only available inside tests');
    return receiver;
  };
  const fixture: ReceiverFixture = {
    get url() {
      return started().url;
    },
    get requests() {
      return started().requests;
    },
    answer: () => initial,
  };
  beforeAll(async () => {
    receiver = await startReceiver((request, index) => fixture.answer(index, request));
  });
  afterAll(() => receiver?.close());
  beforeEach(() => {
    started().requests.length = 0;
    fixture.answer = () => initial;
  });
  return fixture;
}

/** An answer that holds the first request unanswered until `release` (at any time, before it came too), and the rest `rest` at once. */
export function holdingFirst(rest: Reply = { status: 200 }): {
  answer: (index: number) => Reply | Promise<Reply>;
  release(reply?: Reply): void;
} {
  let release: (reply: Reply) => void = () => undefined;
  const held = new Promise<Reply>((resolve) => (release = resolve));
  return { answer: (index) => (index === 0 ? held : rest), release: (reply = { status: 200 }) => release(reply) };
}
