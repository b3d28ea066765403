import { AppError } from '../errors/app-error';
import { sql } from './sql/sql';

/**
 * Push and poll are exclusive on a channel (ADR 0047): a channel whose changes are pushed to a
 * URL answers a token's listing or acknowledgement with 409, so that two consumers never split one
 * channel's feed. Which channels push is read at most once a second per store: turning push on or
 * off takes effect within that second.
 */

/** What the check reads: rows of (channel id, or null for default; the URL pushed to). */
export type PushTargetsQuery = () => Promise<Array<{ channel_id: number | null; url: string }>>;

export const PUSH_TARGETS = sql`SELECT channel_id, url FROM webhook_configs WHERE kind = 'changes'`;

const READ_EVERY_MS = 1_000;
const DEFAULT = -1;

type Reading = { at: number; targets: Promise<Map<number, string>> };
const readings = new WeakMap<object, Reading>();

async function targetsOf(store: object, query: PushTargetsQuery): Promise<Map<number, string>> {
  let reading = readings.get(store);
  if (!reading || Date.now() - reading.at > READ_EVERY_MS) {
    const targets = query().then((rows) => new Map(rows.map((r) => [r.channel_id ?? DEFAULT, r.url])));
    reading = { at: Date.now(), targets };
    readings.set(store, reading);
    targets.catch(() => readings.delete(store));
  }
  return reading.targets;
}

/** Throws 409 when `channelId` (null: default) pushes its changes; `store` keys the once-a-second reading. */
export async function refuseIfPushed(store: object, query: PushTargetsQuery, channelId: number | null): Promise<void> {
  const url = (await targetsOf(store, query)).get(channelId ?? DEFAULT);
  if (url === undefined) return;
  throw new AppError(
    'CONFLICT',
    `This channel pushes its changes to ${url} (change webhooks): its changes are acknowledged by that endpoint's 2xx, not listed or acknowledged by a token`,
    [{ field: 'channel', message: 'The channel is in push mode' }],
  );
}
