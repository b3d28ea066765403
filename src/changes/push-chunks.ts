import type { PrismaClient } from '../generated/prisma/client';
import { attachedPool } from '../db/pg-transaction';

/**
 * Large pushes on the embedded store commit in ordered chunks (ADR 0040): PGlite runs one
 * transaction at a time, so a poll waits for whatever transaction is open; a chunk bounds that
 * wait. PostgreSQL (real concurrency) keeps one transaction per push whatever is set here.
 */
const chunkSizes = new WeakMap<PrismaClient, number>();

/** The default of `EMBEDDED_PUSH_CHUNK_RECORDS`, measured in ADR 0040. */
export const DEFAULT_PUSH_CHUNK_RECORDS = 1_000;

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
