import path from 'node:path';
import { z } from 'zod';
import { backupEmbeddedStore } from '../../db/backup';
import { defineOperation } from '../operation';

/** In the running server this finds nothing to do (it migrated at start) and says so. */
export const migrateOperation = defineOperation({
  name: 'store.migrate',
  args: z.object({}),
  migrateFirst: false,
  run: async ({ db }) => ({ applied: await db.migrate() }),
});

/**
 * A consistent backup of the embedded store, taken by whichever process holds it: the running
 * server (between two statements, ADR 0026) or the CLI on a stopped store. The path is resolved
 * by the CLI, since the server's working directory may differ.
 */
export const backupOperation = defineOperation({
  name: 'store.backup',
  args: z.object({
    file: z
      .string()
      .min(1)
      .refine((file) => path.isAbsolute(file), 'must be an absolute path'),
  }),
  migrateFirst: false,
  run: async ({ db }, { file }) => backupEmbeddedStore(db, file),
});
