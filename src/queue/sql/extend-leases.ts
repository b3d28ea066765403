import type { QueueDatabase } from './queue-database';

/** The heartbeat: pushes out the leases of the items held (id → lease token) while still ours. */
export async function extendLeases(db: QueueDatabase, held: ReadonlyMap<number, string>, leaseUntil: Date): Promise<void> {
  const ids = [...held.keys()];
  const tokens = ids.map((id) => held.get(id)!);
  await db.$queryRaw`
    UPDATE outbound_queue_items AS q SET lease_expires_at = ${leaseUntil}::timestamptz
      FROM unnest(${ids}::int[], ${tokens}::text[]) AS h(id, lease_token)
     WHERE q.id = h.id AND q.lease_token = h.lease_token AND q.status = 'processing'
     RETURNING q.id`;
}
