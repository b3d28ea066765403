import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { MIGRATIONS_DIR, readMigrationList } from '../../src/db/migrator';
import { diffMigrationsToSchema } from '../../scripts/migration-authoring';
import { backends, openTestDatabase, type TestDatabase } from '../support/database';

describe('migrations', () => {
  it('agree with prisma/schema.prisma (run `npm run db:migration:new -- <name>` after a schema change)', async () => {
    expect(await diffMigrationsToSchema()).toBe('');
  });

  it('are in Prisma layout: <timestamp>_<name>/migration.sql and a postgresql lock file', async () => {
    const list = await readMigrationList();
    expect(list.migrationDirectories.length).toBeGreaterThan(0);
    for (const dir of list.migrationDirectories) expect(dir.path).toMatch(/^\d{14}_\w+$/);
    expect(list.lockfile.content).toMatch(/provider = "postgresql"/);
  });
});

describe.each(backends)('applied migrations on %s', (backend) => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await openTestDatabase(backend);
  });
  afterAll(() => db?.close());

  it('are recorded in _prisma_migrations as prisma migrate deploy records them', async () => {
    const rows = await db.prisma.$queryRawUnsafe<
      Array<{
        migration_name: string;
        checksum: string;
        finished_at: Date | null;
        rolled_back_at: Date | null;
        applied_steps_count: number;
      }>
    >('SELECT migration_name, checksum, finished_at, rolled_back_at, applied_steps_count FROM _prisma_migrations ORDER BY migration_name');
    const list = await readMigrationList();
    expect(rows.map((r) => r.migration_name)).toEqual(list.migrationDirectories.map((d) => d.path));
    for (const row of rows) {
      const sql = readFileSync(path.join(MIGRATIONS_DIR, row.migration_name, 'migration.sql'));
      expect(row.checksum).toBe(createHash('sha256').update(sql).digest('hex'));
      expect(row.finished_at).not.toBeNull();
      expect(row.rolled_back_at).toBeNull();
      expect(row.applied_steps_count).toBe(1);
    }
  });

  it('apply nothing the second time', async () => {
    expect(await db.migrate()).toEqual([]);
  });
});
