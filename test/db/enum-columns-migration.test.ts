/**
 * The migration that turns status, source and direction into enums keeps every row's value: it
 * converts the columns in place (Prisma's generated version dropped and re-added them). Run on a
 * store holding rows written by the previous schema, on both backends.
 */
import { backends } from '../support/database';
import { migrationSql, withStoreBefore } from '../support/migration-store';

const ENUM_MIGRATION = '20261124145046_status_source_direction_enums';

describe.each(backends)('the enum migration on %s', (backend) => {
  it('converts stored statuses, sources and directions in place, and the defaults still apply', async () => {
    await withStoreBefore(backend, ENUM_MIGRATION, async (store) => {
      await store.exec(`
        INSERT INTO webhook_configs (id, url, entity_type, direction, secret_encrypted) VALUES
          (1, 'https://a.example/hook', 'product', 'to_erp', 'x'), (2, 'https://b.example/hook', 'partner', 'to_webshop', 'x');
        INSERT INTO sync_failures (id, entity_type, source, error_message, status) VALUES
          (1, 'product', 'erp', 'boom', 'open'), (2, 'partner', 'webshop', 'bang', 'resolved');
        INSERT INTO outbound_queue_items (id, status, message_id, payload, webhook_config_id, failure_id) VALUES
          (1, 'pending', 'msg_1', '{}', 1, 1), (2, 'processing', 'msg_2', '{}', 1, 1),
          (3, 'completed', 'msg_3', '{}', 2, 2), (4, 'failed', 'msg_4', '{}', 2, 2);`);

      await store.exec(migrationSql(ENUM_MIGRATION));

      expect(await store.rows('SELECT id, direction::text FROM webhook_configs ORDER BY id')).toEqual([
        { id: 1, direction: 'to_erp' },
        { id: 2, direction: 'to_webshop' },
      ]);
      expect(await store.rows('SELECT id, source::text, status::text FROM sync_failures ORDER BY id')).toEqual([
        { id: 1, source: 'erp', status: 'open' },
        { id: 2, source: 'webshop', status: 'resolved' },
      ]);
      expect(await store.rows('SELECT id, status::text FROM outbound_queue_items ORDER BY id')).toEqual([
        { id: 1, status: 'pending' },
        { id: 2, status: 'processing' },
        { id: 3, status: 'completed' },
        { id: 4, status: 'failed' },
      ]);
      expect(
        await store.rows(`SELECT pg_typeof(status)::text AS type FROM outbound_queue_items UNION ALL
                          SELECT pg_typeof(status)::text FROM sync_failures UNION ALL
                          SELECT pg_typeof(source)::text FROM sync_failures UNION ALL
                          SELECT pg_typeof(direction)::text FROM webhook_configs`),
      ).toEqual(
        expect.arrayContaining([
          { type: 'queue_status' },
          { type: 'failure_status' },
          { type: 'failure_source' },
          { type: 'webhook_direction' },
        ]),
      );

      await store.exec(`INSERT INTO sync_failures (id, entity_type, source, error_message) VALUES (3, 'product', 'erp', 'new');
                        INSERT INTO outbound_queue_items (id, message_id, payload) VALUES (5, 'msg_5', '{}');`);
      expect(await store.rows('SELECT status::text FROM sync_failures WHERE id = 3')).toEqual([{ status: 'open' }]);
      expect(await store.rows('SELECT status::text FROM outbound_queue_items WHERE id = 5')).toEqual([{ status: 'pending' }]);
    });
  });
});
