import { TRACKED_ENTITIES, TRACKED_TABLES } from '../../src/changes/tracked-entities';
import { trackedEntities } from '../../src/modules';
import { HISTORY_ENTITIES, historyEntityType } from '../../src/changes/history-writes';

describe("TRACKED_ENTITIES and the domains' descriptors", () => {
  it('give every ledger table one API, in the same order', () => {
    expect(trackedEntities.map((e) => e.table)).toEqual(TRACKED_TABLES);
    trackedEntities.forEach((e, i) => expect(e).toMatchObject(TRACKED_ENTITIES[i]!));
  });

  it('names every table, entity type and operation once', () => {
    const names = trackedEntities.flatMap((e) => Object.values(e.operations).map((name) => `${e.table}:${name}`));
    const operations = trackedEntities.flatMap((e) => [e.operations.list, e.operations.ackMany, e.operations.pendingCount]);
    expect(new Set(TRACKED_TABLES).size).toBe(TRACKED_ENTITIES.length);
    expect(new Set(TRACKED_ENTITIES.map((e) => e.entityType)).size).toBe(TRACKED_ENTITIES.length);
    expect(new Set(operations).size).toBe(operations.length);
    expect(names).toContain('products:syncProducts');
  });

  it('has a push limit and an input for every entity pushed on its own', () => {
    for (const entity of trackedEntities) {
      if (!('push' in entity)) continue;
      expect(entity.push.maxItems).toBeGreaterThan(0);
      expect(entity.push.input.schema.safeParse({}).success).toBe(false);
    }
  });
});

describe('HISTORY_ENTITIES', () => {
  it('are the descriptors that say history: every entity but stocks, in registry order', () => {
    expect(HISTORY_ENTITIES.map((e) => e.entityType)).toEqual(['product', 'partner', 'sale_order', 'purchase_order', 'price_item']);
    expect(historyEntityType('sale_orders')).toBe('sale_order');
  });
});
