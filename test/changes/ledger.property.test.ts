import { isDeepStrictEqual } from 'node:util';
import fc from 'fast-check';
import { changedFieldNames, mergeFields } from '../../src/changes/diff';
import { acknowledgeMany } from '../../src/changes/tracked-service';
import { listUpdatedProducts, syncProducts } from '../../src/products/product.service';
import { backends, openTestDatabase, type TestDatabase } from '../support/database';

const value = fc.oneof(fc.integer({ min: 0, max: 3 }), fc.constantFrom('a', 'b'), fc.constant(null), fc.array(fc.integer({ min: 0, max: 2 }), { maxLength: 2 }));
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

type Command =
  | { kind: 'sync'; externalId: string; fields: Record<string, unknown> }
  | { kind: 'list'; limit: number }
  | { kind: 'ack'; pick: boolean[] };

const command: fc.Arbitrary<Command> = fc.oneof(
  fc.record({ kind: fc.constant('sync' as const), externalId: fc.constantFrom('A', 'B', 'C'), fields }),
  fc.record({ kind: fc.constant('list' as const), limit: fc.integer({ min: 1, max: 3 }) }),
  fc.record({ kind: fc.constant('ack' as const), pick: fc.array(fc.boolean(), { minLength: 3, maxLength: 3 }) }),
);

describe.each(backends)('the acknowledgement ledger on %s', (backend) => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await openTestDatabase(backend);
  });
  afterAll(() => db?.close());

  it('loses no change, whatever the order of syncs, lists and acks', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(command, { minLength: 1, maxLength: 25 }), async (commands) => {
        await db.prisma.product.deleteMany();
        const truth = new Map<string, Record<string, unknown>>(); // what the ERP has sent, merged
        const shop = new Map<string, Record<string, unknown>>(); // what the webshop has applied
        let lastListed: Array<{ id: number; externalId: string }> = [];

        for (const c of commands) {
          if (c.kind === 'sync') {
            const result = await syncProducts(db.prisma, [{ external_id: c.externalId, ...c.fields }], 'erp_sync');
            expect(result.success).toBe(true);
            truth.set(c.externalId, mergeFields(truth.get(c.externalId) ?? {}, c.fields));
          } else if (c.kind === 'list') {
            const page = await listUpdatedProducts(db.prisma, { limit: c.limit });
            for (const p of page.payload) shop.set(p.externalId, p.data as Record<string, unknown>);
            lastListed = page.payload.map((p) => ({ id: p.id, externalId: p.externalId }));
          } else {
            const ids = lastListed.filter((_, i) => c.pick[i]).map((p) => p.id);
            if (ids.length > 0) await acknowledgeMany(db.prisma, 'products', ids);
          }

          // Nothing lost: whatever the webshop does not have yet is still pending, field by field.
          const rows = new Map((await db.prisma.product.findMany()).map((p) => [p.externalId, p]));
          for (const [externalId, expected] of truth) {
            const row = rows.get(externalId)!;
            expect(row.data).toEqual(expected);
            const copy = shop.get(externalId);
            if (copy !== undefined && isDeepStrictEqual(copy, expected)) continue;
            expect(row.pending).toBe(true);
            if (copy !== undefined && !row.isNew) {
              for (const field of changedFieldNames(copy, expected)) expect(row.changedFields).toContain(field);
            }
          }
        }
      }),
      { numRuns: backend === 'pglite' ? 60 : 40 },
    );
  });
});
