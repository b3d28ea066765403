import path from 'node:path';
import { defineConfig } from 'prisma/config';

// The Prisma CLI wants to download its native schema engine even for `generate`, and
// this project must install offline. `generate` never runs the engine, so any existing
// file satisfies the check. Migrations run through the WebAssembly engine (src/db/migrator.ts).
process.env.PRISMA_SCHEMA_ENGINE_BINARY ??= path.join(__dirname, 'package.json');
process.env.CHECKPOINT_DISABLE ??= '1';

export default defineConfig({
  schema: path.join('prisma', 'schema.prisma'),
  migrations: { path: path.join('prisma', 'migrations') },
});
