import { isDeepStrictEqual } from 'node:util';
import fc from 'fast-check';
import { changedFieldNames, mergeFields } from '../../src/changes/diff';
import { acknowledgeMany } from '../../src/changes/tracked.service';
import { listUpdatedProducts, syncProducts } from '../../src/products/product.service';
import { channelIdOf, createChannel } from '../../src/channels/channel.service';
import { backends, openTestDatabase, type TestDatabase } from '../support/database';

const value = fc.oneof(
  fc.integer({ min: 0, max: 3 }),
  fc.constantFrom('a', 'b'),
  fc.constant(null),
  fc.array(fc.integer({ min: 0, max: 2 }), { maxLength: 2 }),
);
// Free-form fields (name, price… have types of their own, checked elsewhere).
const fields = fc.dictionary(fc.constantFrom('color', 'size', 'dims', 'tags'), value, { maxKeys: 3 });

describe('field diff laws', () => {
  it('reports exactly the incoming fields whose value differs, and nothing once merged', () => {
    fc.assert(
      fc.property(fields, fields, (stored, incoming) => {
        const changed = changedFieldNames(stored, incoming);
        for (const key of Object.keys(incoming)) {
          expect(changed.includes(key)).toBe(!(key in stored) || !isDeepStrictEqual(stored[key], incoming[key]));
        }
        expect(changed.every((k) => k in incoming)).toBe(true);
        expect(changedFieldNames(mergeFields(stored, incoming), incoming)).toEqual([]);
      }),
      { numRuns: 500 },
    );
  });
});

/** Two channels, each read by two tokens: default (the records' own ledger) and b (ADR 0045). */
const READERS = ['token:webshop', 'token:monitor', 'token:b-shop', 'token:b-monitor'] as const;
type Reader = (typeof READERS)[number];
const CHANNELS = ['default', 'b'] as const;
type ChannelName = (typeof CHANNELS)[number];
const channelOf = (reader: Reader): ChannelName => (reader.startsWith('token:b-') ? 'b' : 'default');
type ShopCopy = Map<string, { revision: number; data: Record<string, unknown> }>;
type Sync = { kind: 'sync'; externalId: string; fields: Record<string, unknown> };
type List = { kind: 'list'; reader: Reader; limit: number };
type Command =
  | Sync
  | List
  /** A sync and a listing at the same time: on PostgreSQL the listing may see either side of the commit. */
  | { kind: 'race'; sync: Sync; list: List }
  | { kind: 'ack'; reader: Reader; pick: boolean[]; withRevision: boolean };

const sync = fc.record({ kind: fc.constant('sync' as const), externalId: fc.constantFrom('A', 'B'), fields });
const list = fc.record({ kind: fc.constant('list' as const), reader: fc.constantFrom(...READERS), limit: fc.integer({ min: 1, max: 3 }) });
const command: fc.Arbitrary<Command> = fc.oneof(
  sync,
  list,
  fc.record({ kind: fc.constant('race' as const), sync, list }),
  fc.record({
    kind: fc.constant('ack' as const),
    reader: fc.constantFrom(...READERS),
    pick: fc.array(fc.boolean(), { minLength: 3, maxLength: 3 }),
    withRevision: fc.boolean(),
  }),
);

/** A record as a listing showed it; `raced` when a push ran at the same time (its mark may be skipped). */
type Shown = { id: number; externalId: string; revision: number; data: Record<string, unknown>; raced: boolean };

describe.each(backends)('the acknowledgement ledger on %s', (backend) => {
  let db: TestDatabase;
  const channelIds: Record<ChannelName, number | null> = { default: null, b: null };
  beforeAll(async () => {
    db = await openTestDatabase(backend);
    channelIds.b = await channelIdOf(db.prisma, (await createChannel(db.prisma, 'property-b')).name);
  });
  const feed = (reader: Reader) => ({ key: reader, channelId: channelIds[channelOf(reader)] });
  afterAll(() => db?.close());

  /**
   * Two channels, two readers on each, poll the change list; any reader acknowledges what it was
   * shown, by id or by revision. Each channel's webshop applies what its acknowledging reader was
   * shown. Whatever the order, a record is only ever not pending on a channel when that channel's
   * webshop holds the ERP's latest values, a pending record names every field it still lacks, and
   * each channel's total is exact.
   */
  it('loses no change, whatever the order of syncs, lists by four readers on two channels, and acks', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(command, { minLength: 1, maxLength: 25 }), async (commands) => {
        await db.prisma.product.deleteMany();
        const truth = new Map<string, Record<string, unknown>>(); // what the ERP has sent, merged
        const shops: Record<ChannelName, ShopCopy> = { default: new Map(), b: new Map() }; // what each channel's webshop applied
        const lastListed = new Map<Reader, Shown[]>(READERS.map((r) => [r, []]));

        const runSync = async (c: Sync) => {
          const result = await syncProducts(db, [{ external_id: c.externalId, ...c.fields }], 'erp_sync');
          expect(result.success).toBe(true);
          truth.set(c.externalId, mergeFields(truth.get(c.externalId) ?? {}, c.fields));
        };
        const runList = async (c: List, raced = false) => {
          const page = await listUpdatedProducts(db, feed(c.reader), { limit: c.limit });
          lastListed.set(
            c.reader,
            page.payload.map((p) => ({
              id: p.id,
              externalId: p.externalId,
              revision: p.revision,
              data: p.data as Record<string, unknown>,
              raced,
            })),
          );
        };

        for (const c of commands) {
          if (c.kind === 'sync') await runSync(c);
          else if (c.kind === 'list') await runList(c);
          else if (c.kind === 'race') await Promise.all([runSync(c.sync), runList(c.list, true)]);
          else {
            const picked = lastListed.get(c.reader)!.filter((_, i) => c.pick[i]);
            if (picked.length === 0) continue;
            const result = await acknowledgeMany(
              db.prisma,
              'products',
              feed(c.reader),
              c.withRevision ? { items: picked.map((p) => ({ id: p.id, revision: p.revision })) } : { ids: picked.map((p) => p.id) },
            );
            // A listing skips marking rows a push holds locked: such an ack by id covers nothing.
            const raced = new Set(picked.filter((p) => p.raced).map((p) => p.id));
            expect(result.notListed.filter((id) => !raced.has(id))).toEqual([]);
            const shop = shops[channelOf(c.reader)];
            for (const p of picked) {
              if (result.notListed.includes(p.id)) continue;
              if ((shop.get(p.externalId)?.revision ?? 0) < p.revision) shop.set(p.externalId, { revision: p.revision, data: p.data });
            }
          }

          // Nothing lost, on either channel: whatever its webshop does not have yet is still pending
          // there, field by field; and its total counts exactly what it lists.
          const rows = new Map((await db.prisma.product.findMany()).map((p) => [p.externalId, p]));
          for (const channel of CHANNELS) {
            const pending = await listUpdatedProducts(db, { key: null, channelId: channelIds[channel] }, { limit: 500 });
            expect(pending.meta.total).toBe(pending.payload.length);
            const listed = new Map(pending.payload.map((p) => [p.externalId, p]));
            for (const [externalId, expected] of truth) {
              expect(rows.get(externalId)!.data).toEqual(expected);
              const copy = shops[channel].get(externalId)?.data;
              if (copy !== undefined && isDeepStrictEqual(copy, expected)) continue;
              const record = listed.get(externalId);
              expect({ channel, externalId, pending: record !== undefined }).toEqual({ channel, externalId, pending: true });
              if (copy !== undefined && !record!.isNew) {
                for (const field of changedFieldNames(copy, expected)) expect(record!.changedFields).toContain(field);
              }
            }
          }
        }
      }),
      { numRuns: backend === 'embedded' ? 150 : 60 },
    );
  });
});
