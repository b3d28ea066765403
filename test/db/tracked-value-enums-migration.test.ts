/**
 * The migration that turns sale_orders.direction, partners.type and webhook_configs.entity_type
 * into enums keeps every row's value (converted in place), keeps the indexes, and the sale
 * orders' pending counts per direction stay right across it. Both backends.
 */
import { backends } from '../support/database';
import { migrationSql, withStoreBefore, type MigrationStore } from '../support/migration-store';

const MIGRATION = '20261124221609_tracked_value_enums';

const pendingPerDirection = (store: MigrationStore) =>
  store.rows(`SELECT scope, sum(delta)::int AS n FROM pending_count_deltas
               WHERE table_name = 'sale_orders' GROUP BY scope HAVING sum(delta) <> 0 ORDER BY scope`);

describe.each(backends)('the tracked value enum migration on %s', (backend) => {
  it('converts directions, partner types and webhook entity types in place; counts stay right', async () => {
    await withStoreBefore(backend, MIGRATION, async (store) => {
      await store.exec(`
        INSERT INTO sale_orders (id, external_id, direction, pending) VALUES
          (1, 'SO-1', 'inbound', true), (2, 'SO-2', 'outbound', true), (3, 'SO-3', 'outbound', false);
        INSERT INTO partners (id, external_id, type) VALUES (1, 'P-1', 'B'), (2, 'P-2', NULL), (3, 'P-3', 'O');
        INSERT INTO webhook_configs (id, url, entity_type, direction, secret_encrypted) VALUES
          (1, 'https://a.example/hook', 'sale_order', 'to_erp', 'x'), (2, 'https://b.example/hook', 'partner', 'to_webshop', 'x');`);
      expect(await pendingPerDirection(store)).toEqual([
        { scope: 'inbound', n: 1 },
        { scope: 'outbound', n: 1 },
      ]);

      await store.exec(migrationSql(MIGRATION));

      expect(await store.rows('SELECT id, direction::text FROM sale_orders ORDER BY id')).toEqual([
        { id: 1, direction: 'inbound' },
        { id: 2, direction: 'outbound' },
        { id: 3, direction: 'outbound' },
      ]);
      expect(await store.rows('SELECT id, type::text FROM partners ORDER BY id')).toEqual([
        { id: 1, type: 'B' },
        { id: 2, type: null },
        { id: 3, type: 'O' },
      ]);
      expect(await store.rows('SELECT id, entity_type::text FROM webhook_configs ORDER BY id')).toEqual([
        { id: 1, entity_type: 'sale_order' },
        { id: 2, entity_type: 'partner' },
      ]);
      expect(
        await store.rows(`SELECT pg_typeof(direction)::text AS type FROM sale_orders UNION
                          SELECT pg_typeof(type)::text FROM partners UNION
                          SELECT pg_typeof(entity_type)::text FROM webhook_configs ORDER BY type`),
      ).toEqual([{ type: 'failure_entity_type' }, { type: 'partner_type' }, { type: 'sale_order_direction' }]);
      expect(
        await store.rows(`SELECT indexname FROM pg_indexes
                           WHERE indexname IN ('sale_orders_direction_pending_updated_at_id_idx',
                                               'webhook_configs_entity_type_direction_active_idx') ORDER BY indexname`),
      ).toEqual([
        { indexname: 'sale_orders_direction_pending_updated_at_id_idx' },
        { indexname: 'webhook_configs_entity_type_direction_active_idx' },
      ]);

      // The triggers count per direction after the conversion: an insert, an acknowledgement and a delete.
      await store.exec(`
        INSERT INTO sale_orders (id, external_id, direction, pending) VALUES (4, 'SO-4', 'inbound', true);
        UPDATE sale_orders SET pending = false WHERE id = 2;
        UPDATE sale_orders SET pending = true WHERE id = 3;
        DELETE FROM sale_orders WHERE id = 1;`);
      expect(await pendingPerDirection(store)).toEqual([
        { scope: 'inbound', n: 1 },
        { scope: 'outbound', n: 1 },
      ]);
      await expect(store.exec(`INSERT INTO partners (external_id, type) VALUES ('P-4', 'X')`)).rejects.toThrow(/partner_type/);
    });
  });
});
