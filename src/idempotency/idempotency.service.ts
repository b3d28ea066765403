import { randomUUID } from 'node:crypto';
import type { PrismaClient } from '../generated/prisma/client';

/** How long a key and its stored answer are kept (Stripe's 24 hours). */
export const KEY_RETENTION_HOURS = 24;

export type StoredResponse = { status: number; body: string; headers: Record<string, string> };

/**
 * What claiming a key found: the caller holds it and runs the request (`claimed`), or another
 * request got there first and finished (`completed`), is still running (`in-progress`), or was
 * a different request (`mismatch`).
 */
export type ClaimOutcome =
  /** `since`: when the key was first claimed for this request; a takeover after a crash keeps it. */
  | { kind: 'claimed'; leaseToken: string; since: Date }
  | { kind: 'completed'; response: StoredResponse }
  | { kind: 'in-progress' }
  | { kind: 'mismatch' };

export type KeyIdentity = { scope: string; key: string };

type ExistingRow = {
  fingerprint: string;
  lease_token: string | null;
  response_status: number | null;
  response_body: string | null;
  response_headers: Record<string, string> | null;
};

/**
 * Takes the key in one statement: a new key is inserted; an existing one is taken over only when
 * it is past its retention (any request may reuse it then) or when it is the same request whose
 * holder stopped renewing its lease (a crashed process). Row locking makes exactly one of
 * concurrent claimants win on both backends.
 */
export async function claimKey(prisma: PrismaClient, id: KeyIdentity, fingerprint: string, leaseMs: number): Promise<ClaimOutcome> {
  const leaseToken = randomUUID();
  // A key deleted between the two statements (a 5xx released it, pruning) is claimed on the next round.
  for (let attempt = 0; attempt < 3; attempt++) {
    const claimed = await prisma.$queryRaw<Array<{ lease_token: string; created_at: Date }>>`
      INSERT INTO idempotency_keys AS k (scope, key, fingerprint, lease_token, lease_expires_at, created_at)
      VALUES (${id.scope}, ${id.key}, ${fingerprint}, ${leaseToken}, now() + ${leaseMs}::integer * interval '1 millisecond', now())
      ON CONFLICT (scope, key) DO UPDATE SET
        fingerprint = EXCLUDED.fingerprint, lease_token = EXCLUDED.lease_token, lease_expires_at = EXCLUDED.lease_expires_at,
        -- A takeover after a crash is the same request: it keeps its creation time (see idempotencyRef).
        created_at = CASE WHEN k.created_at < now() - make_interval(hours => ${KEY_RETENTION_HOURS}::integer) THEN EXCLUDED.created_at ELSE k.created_at END,
        response_status = NULL, response_body = NULL, response_headers = NULL, completed_at = NULL
      WHERE k.created_at < now() - make_interval(hours => ${KEY_RETENTION_HOURS}::integer)
         OR (k.completed_at IS NULL AND k.lease_expires_at < now() AND k.fingerprint = EXCLUDED.fingerprint)
      RETURNING lease_token, created_at`;
    if (claimed[0]?.lease_token === leaseToken) return { kind: 'claimed', leaseToken, since: claimed[0].created_at };
    const [row] = await prisma.$queryRaw<ExistingRow[]>`
      SELECT fingerprint, lease_token, response_status, response_body, response_headers
      FROM idempotency_keys WHERE scope = ${id.scope} AND key = ${id.key}`;
    if (!row) continue;
    if (row.fingerprint !== fingerprint) return { kind: 'mismatch' };
    if (row.response_status === null || row.response_body === null) return { kind: 'in-progress' };
    return { kind: 'completed', response: { status: row.response_status, body: row.response_body, headers: row.response_headers ?? {} } };
  }
  return { kind: 'in-progress' };
}

/** Keeps a long request's claim alive; false once the lease was lost (taken over or deleted). */
export async function renewLease(prisma: PrismaClient, id: KeyIdentity, leaseToken: string, leaseMs: number): Promise<boolean> {
  const count = await prisma.$executeRaw`
    UPDATE idempotency_keys SET lease_expires_at = now() + ${leaseMs}::integer * interval '1 millisecond'
    WHERE scope = ${id.scope} AND key = ${id.key} AND lease_token = ${leaseToken}`;
  return count > 0;
}

/** Stores the answer for replays; false if the claim was no longer ours (the lease ran out). */
export async function completeKey(prisma: PrismaClient, id: KeyIdentity, leaseToken: string, response: StoredResponse): Promise<boolean> {
  const count = await prisma.$executeRaw`
    UPDATE idempotency_keys
    SET response_status = ${response.status}, response_body = ${response.body}, response_headers = ${JSON.stringify(response.headers)}::jsonb,
        completed_at = now(), lease_token = NULL, lease_expires_at = NULL
    WHERE scope = ${id.scope} AND key = ${id.key} AND lease_token = ${leaseToken}`;
  return count > 0;
}

/** Forgets a claim whose request did not produce an answer worth keeping (5xx): a retry runs it again. */
export async function releaseKey(prisma: PrismaClient, id: KeyIdentity, leaseToken: string): Promise<void> {
  await prisma.$executeRaw`DELETE FROM idempotency_keys WHERE scope = ${id.scope} AND key = ${id.key} AND lease_token = ${leaseToken}`;
}

/** Deletes up to `limit` keys past their retention whose holder, if any, is gone; returns how many. */
export async function pruneExpiredKeys(prisma: PrismaClient, limit = 5_000): Promise<number> {
  return prisma.$executeRaw`
    DELETE FROM idempotency_keys WHERE (scope, key) IN (
      SELECT scope, key FROM idempotency_keys
      WHERE created_at < now() - make_interval(hours => ${KEY_RETENTION_HOURS}::integer)
        AND (lease_expires_at IS NULL OR lease_expires_at < now())
      LIMIT ${limit}::integer)`;
}
