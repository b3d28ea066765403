import type { PrismaClient } from '../generated/prisma/client';
import { attachedPool } from '../db/pg-transaction';

/**
 * Large pushes on the embedded store commit in ordered chunks (ADR 0040): PGlite runs one
 * transaction at a time, so a poll waits for whatever transaction is open; a chunk bounds that
 * wait. PostgreSQL (real concurrency) keeps one transaction per push whatever is set here.
 */
const chunkSizes = new WeakMap<PrismaClient, number>();

/** The default of `EMBEDDED_PUSH_CHUNK_RECORDS`, measured in ADR 0040. */
export const DEFAULT_PUSH_CHUNK_RECORDS = 500;

/** Called where an embedded client is opened (`EMBEDDED_PUSH_CHUNK_RECORDS`); 0 keeps one transaction per push. */
export function setPushChunkRecords(prisma: PrismaClient, records: number): void {
  chunkSizes.set(prisma, records);
}

/** Records per committed chunk of a push through `prisma`; 0 means one transaction. */
export function pushChunkRecords(prisma: PrismaClient): number {
  if (attachedPool(prisma)) return 0;
  return chunkSizes.get(prisma) ?? 0;
}

/** `items` in order, `size` at a time (one slice when size is 0 or the list is shorter). */
export function inChunks<T>(items: readonly T[], size: number): T[][] {
  if (size <= 0 || items.length <= size) return [[...items]];
  const chunks: T[][] = [];
  for (let i = 0; i < items.length; i += size) chunks.push(items.slice(i, i + size));
  return chunks;
}

const tails = new WeakMap<PrismaClient, Map<string, Promise<unknown>>>();

/**
 * Runs the pushes of one table through `prisma` one after another, in arrival order. In one
 * transaction the change clock did that (a second push waited for the first one's commit); in
 * chunks it is released at each chunk, so without this a second push could slip between two
 * chunks of the first and the older one's later chunks overwrite the newer values (ADR 0040).
 * In-process is enough: the embedded store has exactly one process (the data directory lock).
 */
export async function oneAtATime<T>(prisma: PrismaClient, table: string, work: () => Promise<T>): Promise<T> {
  let byTable = tails.get(prisma);
  if (!byTable) tails.set(prisma, (byTable = new Map()));
  const run = (byTable.get(table) ?? Promise.resolve()).then(work, work);
  const tail = run.catch(() => undefined);
  byTable.set(table, tail);
  try {
    return await run;
  } finally {
    if (byTable.get(table) === tail) byTable.delete(table);
  }
}
