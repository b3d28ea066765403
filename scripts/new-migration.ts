/**
 * `npm run db:migration:new -- <name>`: writes the next migration from a change to
 * prisma/schema.prisma, offline (a throwaway embedded PostgreSQL holds the shadow database).
 */
import path from 'node:path';
import { createMigration } from './migration-authoring';

async function main(): Promise<void> {
  const name = process.argv[2];
  if (!name) {
    console.error('usage: npm run db:migration:new -- <name>');
    process.exit(2);
  }
  const folder = await createMigration(name);
  console.log(
    folder ? `wrote ${path.relative(process.cwd(), folder)}/migration.sql` : 'schema.prisma and the migrations agree: nothing to write',
  );
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
