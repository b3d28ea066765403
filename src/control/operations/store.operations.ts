import { z } from 'zod';
import { defineOperation } from '../operation';

/** In the running server this finds nothing to do (it migrated at start) and says so. */
export const migrateOperation = defineOperation({
  name: 'store.migrate',
  args: z.object({}),
  migrateFirst: false,
  run: async ({ db }) => ({ applied: await db.migrate() }),
});
