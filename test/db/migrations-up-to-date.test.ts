import { PGlite } from '@electric-sql/pglite';
import { PrismaPGlite } from 'pglite-prisma-adapter';
import { applyMigrations } from '../../src/db/migrator';
import { migrationsUpToDate } from '../../src/db/migrations-up-to-date';

describe('the start-up check that lets the schema engine be skipped', () => {
  let pglite: PGlite;

  beforeAll(async () => {
    pglite = await PGlite.create();
  });
  afterAll(() => pglite.close());

  it('says no on an empty database, yes once every migration is applied, and no after any tampering', async () => {
    expect(await migrationsUpToDate(pglite)).toBe(false);
    expect((await applyMigrations(new PrismaPGlite(pglite))).length).toBeGreaterThan(0);
    expect(await migrationsUpToDate(pglite)).toBe(true);

    const [last] = (
      await pglite.query<{ id: string; checksum: string }>(
        'SELECT id, checksum FROM _prisma_migrations ORDER BY migration_name DESC LIMIT 1',
      )
    ).rows;
    await pglite.query("UPDATE _prisma_migrations SET checksum = 'x' WHERE id = $1", [last!.id]);
    expect(await migrationsUpToDate(pglite)).toBe(false);
    await pglite.query('UPDATE _prisma_migrations SET checksum = $2 WHERE id = $1', [last!.id, last!.checksum]);
    expect(await migrationsUpToDate(pglite)).toBe(true);

    // A failed attempt (never finished, not rolled back) must go to the engine, which reports it.
    await pglite.query(
      "INSERT INTO _prisma_migrations (id, checksum, migration_name, started_at, applied_steps_count) VALUES ('failed-one', 'c', '29990101000000_future', now(), 0)",
    );
    expect(await migrationsUpToDate(pglite)).toBe(false);
    await pglite.query("UPDATE _prisma_migrations SET finished_at = now() WHERE id = 'failed-one'");
    expect(await migrationsUpToDate(pglite)).toBe(false); // a migration this build does not know

    await pglite.query("DELETE FROM _prisma_migrations WHERE id IN ('failed-one', $1)", [last!.id]);
    expect(await migrationsUpToDate(pglite)).toBe(false); // one still to apply
  });
});
