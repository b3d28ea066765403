import { randomBytes } from 'node:crypto';
import { getHeapSnapshot } from 'node:v8';
import { inTransaction } from '../../src/changes/upsert';
import { BULK_PARAMETER_CHARS } from '../../src/db/adapter-debug-history';
import { startEmbeddedThread, type EmbeddedThread } from '../../src/db/embedded-thread';
import { applyMigrations } from '../../src/db/migrator';
import { releaseBulkParameters } from '../../src/db/prisma-debug-history';
import { PrismaClient } from '../../src/generated/prisma/client';
import { backends, openTestDatabase, type TestDatabase } from '../support/database';

/*
 * Whether a statement's parameter is still alive is read off a heap snapshot (taken after a full
 * collection), not off heap sizes, which the collector's timing makes noisy. Each parameter holds
 * a random token that only it contains; the needle searched for is built after the snapshot, so
 * the needle itself is never what is found.
 */
const MARK = 'sgw-debug-history-probe:';

type Probe = { token: string; parameter: string };

function probe(chars: number): Probe {
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

const SQL = 'SELECT length($1::text) AS n';
const BULK = BULK_PARAMETER_CHARS * 4;

describe.each(backends)("Prisma's debug history and bulk parameters on %s (this thread)", (backend) => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await openTestDatabase(backend);
  });
  afterAll(() => db?.close());

  it('keeps a raw statement parameter alive (the reason for releaseBulkParameters)', async () => {
    const token = await sendProbe(BULK, (p) => db.prisma.$queryRawUnsafe(SQL, p));
    expect(await holds(getHeapSnapshot(), token)).toBe(true);
  });

  it('lets it go after releaseBulkParameters()', async () => {
    const token = await sendProbe(BULK, async (p) => {
      await db.prisma.$queryRawUnsafe(SQL, p);
      releaseBulkParameters();
    });
    expect(await holds(getHeapSnapshot(), token)).toBe(false);
  });

  it('lets it go after every inTransaction batch, which all bulk syncs run in', async () => {
    const token = await sendProbe(BULK, (p) => inTransaction(db.prisma, (tx) => tx.$queryRawUnsafe(SQL, p)));
    expect(await holds(getHeapSnapshot(), token)).toBe(false);
  });
});

describe("Prisma's debug history in the embedded store's thread", () => {
  let store: EmbeddedThread;
  let prisma: PrismaClient;
  beforeAll(async () => {
    store = await startEmbeddedThread({});
    await applyMigrations(store.adapter);
    prisma = new PrismaClient({ adapter: store.adapter });
  });
  afterAll(async () => {
    await prisma?.$disconnect();
    await store?.close();
  });

  it('keeps a small parameter in the PGlite adapter history (so the probe can see one)', async () => {
    const token = await sendProbe(1_000, (p) => prisma.$queryRawUnsafe(SQL, p));
    expect(await holds(store.heapSnapshot(), token)).toBe(true);
  });

  it('evicts a bulk parameter there after its statement, with no call from this thread', async () => {
    const token = await sendProbe(BULK, (p) => prisma.$queryRawUnsafe(SQL, p));
    expect(await holds(store.heapSnapshot(), token)).toBe(false);
  });
});
