import type { PgRunner } from '../db/pg-transaction';

/**
 * Types the ledger (ledger.ts) and a channel's ledger (channel-ledger.ts) share, here so that
 * neither imports the other for them.
 */

/**
 * What the ledger's statements run on: Prisma, a transaction of it, or a pg connection
 * (src/db/pg-transaction.ts). Each statement is a tagged template, or an `sql` fragment built from
 * them (src/changes/sql/sql.ts): its values are always parameters.
 */
export type SqlRunner = PgRunner;

/** One record to acknowledge: its id, and the revision the reader processed when it says so. */
export type AckItem = { id: number; revision?: number | null | undefined };

export type AckOutcome = {
  /** Records acknowledged (idempotent: a revision acknowledged before counts again). */
  acknowledged: Array<{ id: number; external_id: string | null }>;
  /** Ids of no record. */
  notFound: number[];
  /** Records acknowledged by id alone that were never listed to this reader: nothing was covered. */
  notListed: number[];
  /** Items naming a revision the record never reached (the reader cannot have seen it). */
  futureRevisions: Array<{ id: number; revision: number; current: number }>;
};
