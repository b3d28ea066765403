/**
 * The migration that turns sync_failures.entity_type into the failure_entity_type enum keeps every
 * failure's entity type (converted in place) and both indexes on the column, and a failure still
 * meets the webhook configurations of its type without a cast. Both backends.
 */
import { backends } from '../support/database';
import { migrationSql, withStoreBefore } from '../support/migration-store';

const MIGRATION = '20261125000615_failure_entity_type_enum';

describe.each(backends)('the failure entity type migration on %s', (backend) => {
  it('converts stored failures in place, keeps the indexes, and rejects an unknown entity type', async () => {
    await withStoreBefore(backend, MIGRATION, async (store) => {
      await store.exec(`
        INSERT INTO sync_failures (id, entity_type, source, external_id, middleware_id, error_message, status) VALUES
          (1, 'product', 'erp', 'SKU-1', NULL, 'a', 'open'),
          (2, 'partner', 'webshop', NULL, 7, 'b', 'resolved'),
          (3, 'sale_order', 'erp', 'SO-1', 3, 'c', 'open');
        INSERT INTO webhook_configs (id, url, entity_type, direction, secret_encrypted) VALUES
          (1, 'https://a.example/hook', 'sale_order', 'to_webshop', 'x');
        INSERT INTO outbound_queue_items (id, status, message_id, event, payload, webhook_config_id, failure_id)
          VALUES (1, 'pending', 'msg_1', 'sync_failure', '{}', 1, 3);`);

      await store.exec(migrationSql(MIGRATION));

      expect(
        await store.rows('SELECT id, entity_type::text, external_id, middleware_id, status::text FROM sync_failures ORDER BY id'),
      ).toEqual([
        { id: 1, entity_type: 'product', external_id: 'SKU-1', middleware_id: null, status: 'open' },
        { id: 2, entity_type: 'partner', external_id: null, middleware_id: 7, status: 'resolved' },
        { id: 3, entity_type: 'sale_order', external_id: 'SO-1', middleware_id: 3, status: 'open' },
      ]);
      expect(await store.rows('SELECT DISTINCT pg_typeof(entity_type)::text AS type FROM sync_failures')).toEqual([
        { type: 'failure_entity_type' },
      ]);
      expect(await store.rows('SELECT failure_id FROM outbound_queue_items')).toEqual([{ failure_id: 3 }]);
      expect(
        await store.rows(`SELECT indexname FROM pg_indexes WHERE tablename = 'sync_failures' AND indexdef LIKE '%entity_type%'
                           ORDER BY indexname`),
      ).toEqual([{ indexname: 'sync_failures_entity_type_external_id_idx' }, { indexname: 'sync_failures_entity_type_middleware_id_idx' }]);
      // The enqueue's join (queue.service.ts) compares the two enum columns directly.
      expect(
        await store.rows(`SELECT f.id FROM sync_failures f JOIN webhook_configs c ON c.entity_type = f.entity_type ORDER BY f.id`),
      ).toEqual([{ id: 3 }]);
      await expect(
        store.exec(`INSERT INTO sync_failures (entity_type, source, external_id, error_message) VALUES ('invoice', 'erp', 'X', 'd')`),
      ).rejects.toThrow(/failure_entity_type/);
    });
  });
});
