import { randomUUID } from 'node:crypto';
import type { Pool } from 'pg';
import { QUEUE_CHANNEL } from './queue.service';

/**
 * The payload of this process's NOTIFYs. Its own worker thread, woken in-process already, ignores
 * them (it gets the id through its thread data: a thread has its own copy of this module).
 */
export const QUEUE_NOTIFIER_ID = randomUUID();

/**
 * Least time between two NOTIFYs of one pool. Under a steady stream of reports one in flight at a
 * time still meant about one NOTIFY per report (a statement, a commit, and a message to every
 * listener, this process's own worker thread included); spaced out, it is a few dozen a second at
 * most, and another replica's worker hears of new work at most this much later.
 */
export const QUEUE_NOTIFY_SPACING_MS = 20;

type Notifier = { sending: boolean; again: boolean; lastSentAt: number };
const notifiers = new WeakMap<Pool, Notifier>();

/**
 * Tells the workers of every replica (their LISTEN, ADR 0005) that deliveries were queued: a
 * `NOTIFY` of its own after the statement that queued them committed, at most one at a time per
 * pool; reports that queue work while one is on its way get one more after it (their items may
 * have committed after that one was sent); two are always `QUEUE_NOTIFY_SPACING_MS` apart. Never
 * inside the report's own statement: a transaction that notifies holds a database-wide lock
 * through its commit, so every report would commit one at a time behind it (ADR 0033, "Failure
 * reports"). Only a hint: a NOTIFY that fails or never comes (the process died after the commit)
 * costs latency, not deliveries, since every worker also polls.
 */
export function notifyQueueWork(pool: Pool): void {
  let notifier = notifiers.get(pool);
  if (!notifier) notifiers.set(pool, (notifier = { sending: false, again: false, lastSentAt: 0 }));
  if (notifier.sending) {
    notifier.again = true;
    return;
  }
  notifier.sending = true;
  void send(pool, notifier);
}

async function send(pool: Pool, notifier: Notifier): Promise<void> {
  for (;;) {
    // Spaced from the last one whether or not reports came while it was on its way: a stream of
    // reports each arriving after the previous NOTIFY finished would otherwise still send one each.
    const wait = notifier.lastSentAt + QUEUE_NOTIFY_SPACING_MS - Date.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait).unref());
    notifier.again = false;
    notifier.lastSentAt = Date.now();
    // A pool that is closing, or a database that is away: the workers' polls find the items.
    await pool.query('SELECT pg_notify($1, $2)', [QUEUE_CHANNEL, QUEUE_NOTIFIER_ID]).catch(() => undefined);
    if (!notifier.again) break;
  }
  notifier.sending = false;
}
