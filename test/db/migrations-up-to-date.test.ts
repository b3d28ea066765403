import { Client } from 'pg';
import { migratePostgres, migrationsUpToDate } from '../../src/db/migrations';
import { createPostgresDatabase } from '../support/database';

describe('the start-up check that lets the schema engine be skipped', () => {
  let database: { url: string; drop(): Promise<void> };
  let store: Client;

  beforeAll(async () => {
    database = await createPostgresDatabase('embedded', { migrated: false });
    store = new Client({ connectionString: database.url });
    await store.connect();
  });
  afterAll(async () => {
    await store.end();
    await database.drop();
  });

  it('says no on an empty database, yes once every migration is applied, and no after any tampering', async () => {
    expect(await migrationsUpToDate(store)).toBe(false);
    expect((await migratePostgres(database.url)).length).toBeGreaterThan(0);
    expect(await migrationsUpToDate(store)).toBe(true);

    const [last] = (
      await store.query<{ id: string; checksum: string }>(
        'SELECT id, checksum FROM _prisma_migrations ORDER BY migration_name DESC LIMIT 1',
      )
    ).rows;
    await store.query("UPDATE _prisma_migrations SET checksum = 'x' WHERE id = $1", [last!.id]);
    expect(await migrationsUpToDate(store)).toBe(false);
    await store.query('UPDATE _prisma_migrations SET checksum = $2 WHERE id = $1', [last!.id, last!.checksum]);
    expect(await migrationsUpToDate(store)).toBe(true);

    // A failed attempt (never finished, not rolled back) must go to the engine, which reports it.
    await store.query(
      "INSERT INTO _prisma_migrations (id, checksum, migration_name, started_at, applied_steps_count) VALUES ('failed-one', 'c', '29990101000000_future', now(), 0)",
    );
    expect(await migrationsUpToDate(store)).toBe(false);
    await store.query("UPDATE _prisma_migrations SET finished_at = now() WHERE id = 'failed-one'");
    expect(await migrationsUpToDate(store)).toBe(false); // a migration this build does not know

    await store.query("DELETE FROM _prisma_migrations WHERE id IN ('failed-one', $1)", [last!.id]);
    expect(await migrationsUpToDate(store)).toBe(false); // one still to apply
  });
});
