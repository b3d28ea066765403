import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { inTransaction } from '../../src/changes/tracked-sync';
import { releaseBulkParameters } from '../../src/db/prisma-debug-history';
import { backends, openTestDatabase, type TestDatabase } from '../support/database';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

const MB = 1024 * 1024;
const STATEMENTS = 30;

function liveHeap(): number {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
}

/** A distinct ~1 MB JSON parameter, as a bulk list is sent to SQL. */
function bulkParameter(i: number): string {
  return JSON.stringify(Array.from({ length: 20_000 }, (_, n) => ({ k: `${i}-${n}`, q: n })));
}

describe.each(backends)("Prisma's debug history and bulk parameters on %s", (backend) => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await openTestDatabase(backend);
    // Warm up: the first statements compile code and fill caches that stay, whatever we do.
    for (let i = 0; i < 5; i++) await db.prisma.$queryRawUnsafe('SELECT length($1::text) AS n', bulkParameter(i));
  });
  afterAll(() => db?.close());

  async function heapGrowthAfter(statement: (parameter: string) => Promise<unknown>): Promise<number> {
    releaseBulkParameters();
    const before = liveHeap();
    for (let i = 0; i < STATEMENTS; i++) await statement(bulkParameter(i));
    return liveHeap() - before;
  }

  it('keeps the parameters of recent raw statements alive (the reason for releaseBulkParameters)', async () => {
    const growth = await heapGrowthAfter((p) => db.prisma.$queryRawUnsafe('SELECT length($1::text) AS n', p));
    expect(growth).toBeGreaterThan(15 * MB);
  });

  it('lets them go after releaseBulkParameters()', async () => {
    const growth = await heapGrowthAfter(async (p) => {
      await db.prisma.$queryRawUnsafe('SELECT length($1::text) AS n', p);
      releaseBulkParameters();
    });
    expect(growth).toBeLessThan(5 * MB);
  });

  it('lets them go after every inTransaction batch, which all bulk syncs run in', async () => {
    const growth = await heapGrowthAfter((p) => inTransaction(db.prisma, (tx) => tx.$queryRawUnsafe('SELECT length($1::text) AS n', p)));
    expect(growth).toBeLessThan(5 * MB);
  });
});
