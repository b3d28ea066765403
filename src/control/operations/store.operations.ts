import path from 'node:path';
import { z } from 'zod';
import { backupStore } from '../../backups/backup';
import { exportToPostgres } from '../../backups/export-to-postgres';
import { pgliteStores } from '../../backups/pglite-import';
import { defineOperation } from '../operation';

/** On a running server's store this finds nothing to do (it migrated at start) and says so. */
export const migrateOperation = defineOperation({
  name: 'store.migrate',
  args: z.object({}),
  migrateFirst: false,
  run: async ({ db }) => ({ applied: await db.migrate() }),
});

/**
 * A consistent backup (docs/adr/0026): one snapshot read through the store the CLI opened, the
 * running server's cluster included, while it goes on serving. The path is resolved by the
 * command, against the operator's working directory.
 */
export const backupOperation = defineOperation({
  name: 'store.backup',
  args: z.object({
    file: z
      .string()
      .min(1)
      .refine((file) => path.isAbsolute(file), 'must be an absolute path'),
  }),
  run: async ({ db }, { file }) => ({ ...(await backupStore(db, file)), backend: db.backend }),
});

/** Every table into an empty PostgreSQL database, from one snapshot; works while the server runs. */
export const exportOperation = defineOperation({
  name: 'store.export',
  args: z.object({ to: z.string().regex(/^postgres(ql)?:\/\//, 'must be a postgresql:// connection string') }),
  run: async ({ db }, { to }) => exportToPostgres(db, to),
});

/**
 * The PGlite store of 0.1, imported by the store's migration when this process started the
 * cluster (src/backups/pglite-import.ts); what DATA_DIR holds before and after tells what happened.
 */
export const importPgliteOperation = defineOperation({
  name: 'store.import-pglite',
  args: z.object({}),
  migrateFirst: false,
  run: async ({ db, config }) => {
    if (db.backend !== 'embedded') {
      throw new Error(
        'import-pglite moves DATA_DIR/pglite into the embedded store; unset DATABASE_URL for it, then move the result with export --to',
      );
    }
    const before = await pgliteStores(config.dataDir);
    const applied = await db.migrate();
    const after = await pgliteStores(config.dataDir);
    return {
      applied,
      keptIn: after.imported.find((dir) => !before.imported.includes(dir)),
      earlier: before.imported,
      // Still there: a running server holds DATA_DIR, and only the process that starts the cluster imports.
      notImported: after.pending,
    };
  },
});
