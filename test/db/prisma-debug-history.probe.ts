import { randomBytes } from 'node:crypto';
import { getHeapSnapshot } from 'node:v8';
import { inTransaction } from '../../src/changes/upsert';
import { BULK_PARAMETER_CHARS } from '../../src/db/adapter-debug-history';
import type { EmbeddedThread } from '../../src/db/embedded-thread';
import { releaseBulkParameters } from '../../src/db/prisma-debug-history';
import { PrismaClient } from '../../src/generated/prisma/client';
import { backends, openTestDatabase } from '../support/database';

/*
 * The measuring half of prisma-debug-history.test.ts, run as a process of its own: a heap snapshot
 * costs time in proportion to the heap, and a jest worker that already ran other test files holds
 * hundreds of MB (a snapshot of one took minutes at the end of a full run). Here the heap is this
 * probe's alone, and a snapshot takes a fraction of a second.
 *
 * Whether a statement's parameter is still alive is read off a heap snapshot (taken after a full
 * collection), not off heap sizes, which the collector's timing makes noisy. Each parameter holds
 * a random token that only it contains; the needle searched for is built after the snapshot, so
 * the needle itself is never what is found.
 *
 * It checks this process's Prisma client on each test backend (PGlite, and PostgreSQL when
 * TEST_DATABASE_URL is set) and the embedded store's thread, and sends the answers over the IPC
 * channel (prints them when run by hand).
 */
const MARK = 'sgw-debug-history-probe:';
const SQL = 'SELECT length($1::text) AS n';
const BULK = BULK_PARAMETER_CHARS * 4;

/** Per check, whether its parameter was still in the heap. */
export type Kept = Record<string, boolean>;
/** A backend's name: this process on that backend; `thread`: the embedded store's thread. */
export type ProbeResults = Record<string, Kept>;

function probe(chars: number): { token: string; parameter: string } {
  const token = randomBytes(8).toString('hex');
  // Through a Buffer: one flat string, as a request body's JSON is, not a rope of its parts.
  const parameter = Buffer.from(`${MARK}${token}:${'x'.repeat(chars)}`).toString('latin1');
  return { token, parameter };
}

async function holds(snapshot: NodeJS.ReadableStream | Promise<NodeJS.ReadableStream>, token: string): Promise<boolean> {
  const chunks: Buffer[] = [];
  for await (const chunk of await snapshot) chunks.push(Buffer.from(chunk as Uint8Array));
  return Buffer.concat(chunks).includes(`${MARK}${token}:xxxxxxxx`);
}

/** Runs `statement` on a parameter of its own and answers its token; the parameter is dropped. */
async function sendProbe(chars: number, statement: (parameter: string) => Promise<unknown>): Promise<string> {
  const { token, parameter } = probe(chars);
  await statement(parameter);
  return token;
}

/** In this order: the first check leaves its parameter in the history for the second to release. */
async function probeThisThread(prisma: PrismaClient): Promise<Kept> {
  const raw = await sendProbe(BULK, (p) => prisma.$queryRawUnsafe(SQL, p));
  const rawStatement = await holds(getHeapSnapshot(), raw);
  const released = await sendProbe(BULK, async (p) => {
    await prisma.$queryRawUnsafe(SQL, p);
    releaseBulkParameters();
  });
  const afterReleaseBulkParameters = await holds(getHeapSnapshot(), released);
  const batch = await sendProbe(BULK, (p) => inTransaction(prisma, (tx) => tx.$queryRawUnsafe(SQL, p)));
  const afterInTransaction = await holds(getHeapSnapshot(), batch);
  return { rawStatement, afterReleaseBulkParameters, afterInTransaction };
}

/** Through a client of its own (no query events), as the server's. */
async function probeStoreThread(store: EmbeddedThread): Promise<Kept> {
  const prisma = new PrismaClient({ adapter: store.adapter });
  try {
    const small = await sendProbe(1_000, (p) => prisma.$queryRawUnsafe(SQL, p));
    const smallParameter = await holds(store.heapSnapshot(), small);
    const bulk = await sendProbe(BULK, (p) => prisma.$queryRawUnsafe(SQL, p));
    const bulkParameter = await holds(store.heapSnapshot(), bulk);
    return { smallParameter, bulkParameter };
  } finally {
    await prisma.$disconnect();
  }
}

async function main(): Promise<void> {
  // The store's thread is unref'd: without this, the process would exit (and crash, on Node 20)
  // while a snapshot of that thread is still being taken.
  const keepAlive = setInterval(() => undefined, 60_000);
  try {
    const results: ProbeResults = {};
    for (const backend of backends) {
      const db = await openTestDatabase(backend);
      try {
        results[backend] = await probeThisThread(db.prisma);
        // The same store's thread: starting a second one would double the probe's time.
        if (db.embedded) results.thread = await probeStoreThread(db.embedded);
      } finally {
        await db.close();
      }
    }
    if (process.send) await new Promise((sent) => process.send?.(results, sent));
    else console.log(results);
  } finally {
    clearInterval(keepAlive);
    if (process.connected) process.disconnect();
  }
}

if (require.main === module) {
  main().catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  });
}
