import type { Logger } from 'pino';
import type { PrismaClient } from '../generated/prisma/client';
import type { AuthInfo } from './token.service';

/**
 * The open subscriptions (SSE streams, graphql-ws connections) of this process by the credential
 * that opened them. A request is authenticated once; a stream lives on, so it is re-verified:
 * at once when a revocation is announced (this process, or another replica through Redis), and
 * every `recheckIntervalMs` as a safety net for revocations nobody announced (the CLI) and for
 * sessions that expire. See docs/adr/0014-revocation-ends-streams.md.
 */
export type LiveStreams = {
  /** `end` is called once when the credential is no longer valid; the returned function forgets the stream. */
  track(auth: AuthInfo, end: () => void): () => void;
  /** Re-verifies every open stream's credential and ends those revoked; resolves when done. */
  recheck(): Promise<void>;
  size(): number;
  close(): void;
};

type Credential = { kind: 'token' | 'session'; hash: string };
type Stream = { credential: Credential; end: () => void };

function credentialOf(auth: AuthInfo): Credential | undefined {
  if (auth.sessionTokenHash) return { kind: 'session', hash: auth.sessionTokenHash };
  if (auth.tokenHash) return { kind: 'token', hash: auth.tokenHash };
  return undefined;
}

export function createLiveStreams(options: { prisma: PrismaClient; recheckIntervalMs: number; logger: Logger }): LiveStreams {
  const { prisma, logger } = options;
  const streams = new Set<Stream>();
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  let again = false;

  const stopTimerIfIdle = () => {
    if (streams.size > 0 || !timer) return;
    clearInterval(timer);
    timer = undefined;
  };

  async function validHashes(kind: Credential['kind'], hashes: string[]): Promise<Set<string>> {
    if (hashes.length === 0) return new Set();
    const rows =
      kind === 'token'
        ? await prisma.apiToken.findMany({ where: { tokenHash: { in: hashes }, revokedAt: null }, select: { tokenHash: true } })
        : await prisma.adminSession.findMany({
            where: { tokenHash: { in: hashes }, revokedAt: null, expiresAt: { gt: new Date() }, account: { status: 'active' } },
            select: { tokenHash: true },
          });
    return new Set(rows.map((r) => r.tokenHash));
  }

  async function verifyOnce(): Promise<void> {
    const open = [...streams];
    if (open.length === 0) return;
    const hashes = (kind: Credential['kind']) => [...new Set(open.filter((s) => s.credential.kind === kind).map((s) => s.credential.hash))];
    const [tokens, sessions] = await Promise.all([validHashes('token', hashes('token')), validHashes('session', hashes('session'))]);
    let ended = 0;
    for (const stream of open) {
      const valid = stream.credential.kind === 'token' ? tokens : sessions;
      if (valid.has(stream.credential.hash) || !streams.delete(stream)) continue;
      ended++;
      try {
        stream.end();
      } catch (error) {
        logger.warn({ err: error }, 'ending a live stream failed');
      }
    }
    if (ended > 0) logger.info({ ended }, 'live streams of revoked credentials ended');
    stopTimerIfIdle();
  }

  /** One check at a time; an announcement during a check is honoured by one more check after it. */
  function recheck(): Promise<void> {
    if (running) {
      again = true;
      return running;
    }
    running = (async () => {
      try {
        do {
          again = false;
          await verifyOnce();
        } while (again);
      } catch (error) {
        // An unreachable database ends no stream: the next tick checks again.
        logger.warn({ err: error }, 'live stream credentials not re-verified');
      } finally {
        running = undefined;
      }
    })();
    return running;
  }

  return {
    track(auth, end) {
      const credential = credentialOf(auth);
      if (!credential) return () => undefined;
      const stream: Stream = { credential, end };
      streams.add(stream);
      if (!timer) {
        timer = setInterval(() => void recheck(), options.recheckIntervalMs);
        timer.unref();
      }
      return () => {
        streams.delete(stream);
        stopTimerIfIdle();
      };
    },
    recheck,
    size: () => streams.size,
    close() {
      streams.clear();
      stopTimerIfIdle();
    },
  };
}
