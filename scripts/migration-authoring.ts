/**
 * Writing migrations (`npm run db:migration:new`, and the test that the committed migrations agree
 * with prisma/schema.prisma): the schema engine's diff, offline, on a throwaway embedded cluster
 * with its shadow database. Development tooling: the service itself only applies migrations
 * (src/db/migrator.ts).
 */
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { PrismaPg } from '@prisma/adapter-pg';
import { ColumnTypeEnum, type SqlMigrationAwareDriverAdapterFactory } from '@prisma/driver-adapter-utils';
import { Client } from 'pg';
import pino from 'pino';
import { startEmbeddedCluster } from '../src/db/embedded-postgres';
import {
  engineOperation,
  LOCKFILE_NAME,
  MIGRATIONS_DIR,
  NO_FILTERS,
  openSchemaEngine,
  readMigrationList,
  SCHEMA_PATH,
  wholeScripts,
} from '../src/db/migrator';

/**
 * SQL that would bring a database built from the committed migrations up to schema.prisma;
 * empty when they agree. Runs offline on a throwaway embedded cluster, the shadow database included.
 */
export async function diffMigrationsToSchema(): Promise<string> {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'sgw-diff-'));
  const cluster = await startEmbeddedCluster({ dataDir, logger: pino({ level: 'silent' }), synchronousCommit: false });
  try {
    const admin = new Client({ connectionString: cluster.url });
    await admin.connect();
    await admin.query('CREATE DATABASE shadow');
    await admin.end();
    const shadowUrl = new URL(cluster.url);
    shadowUrl.pathname = '/shadow';
    const adapterFactory = readsCatalogChars(new PrismaPg({ connectionString: cluster.url }));
    const shadow = wholeScripts(readsCatalogChars(new PrismaPg({ connectionString: shadowUrl.toString() })));
    adapterFactory.connectToShadowDb = () => shadow.connect() as ReturnType<PrismaPg['connectToShadowDb']>;
    return await engineOperation(async () => {
      const engine = await openSchemaEngine(wholeScripts(adapterFactory));
      try {
        const result = await engine.diff({
          from: { tag: 'migrations', ...(await readMigrationList()) },
          to: {
            tag: 'schemaDatamodel',
            files: [{ path: SCHEMA_PATH, content: await readFile(SCHEMA_PATH, 'utf8') }],
          },
          script: true,
          exitCode: null,
          filters: NO_FILTERS,
        });
        return isEmptyScript(result.stdout ?? '') ? '' : (result.stdout ?? '');
      } finally {
        engine.free();
      }
    });
  } finally {
    await cluster.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
}

/**
 * The engine's schema description reads catalog columns of PostgreSQL's one-byte `"char"` type
 * (OID 18), which it expects as `Character`; @prisma/adapter-pg 7.10 has no mapping for that type
 * and refuses the whole result (its PGlite sibling maps it). pg reads the value as a string already,
 * so such columns go through the adapter as text and come out typed as `Character`.
 */
function readsCatalogChars<F extends SqlMigrationAwareDriverAdapterFactory>(factory: F): F {
  type Result = { fields: Array<{ dataTypeID: number }>; rows: unknown[] & { charColumns?: number[] } };
  type Patchable = { performIO(query: unknown): Promise<Result> };
  const connect = factory.connect.bind(factory);
  return Object.assign(Object.create(factory) as F, {
    async connect() {
      const adapter = await connect();
      const patchable = adapter as unknown as Patchable;
      const performIO = patchable.performIO.bind(adapter);
      patchable.performIO = async (query) => {
        const result = await performIO(query);
        // A whole migration script answers one result per statement: nothing to describe there.
        if (!Array.isArray(result.fields)) return result;
        const charColumns: number[] = [];
        result.fields.forEach((field, index) => {
          if (field.dataTypeID !== CHAR_OID) return;
          field.dataTypeID = TEXT_OID;
          charColumns.push(index);
        });
        // Carried on the rows array, which queryRaw hands back as is: per call, whatever runs concurrently.
        if (charColumns.length > 0) result.rows.charColumns = charColumns;
        return result;
      };
      const queryRaw = adapter.queryRaw.bind(adapter);
      adapter.queryRaw = async (query) => {
        const resultSet = await queryRaw(query);
        for (const index of (resultSet.rows as Result['rows']).charColumns ?? []) resultSet.columnTypes[index] = ColumnTypeEnum.Character;
        return resultSet;
      };
      return adapter;
    },
  });
}

const CHAR_OID = 18;
const TEXT_OID = 25;

function isEmptyScript(script: string): boolean {
  return script.split('\n').every((line) => line.trim() === '' || line.trim().startsWith('--'));
}

/**
 * Writes the next migration (Prisma's layout: <timestamp>_<name>/migration.sql) from the
 * difference between the committed migrations and schema.prisma. Returns its folder, or
 * undefined when there is nothing to migrate.
 */
export async function createMigration(name: string): Promise<string | undefined> {
  await mkdir(MIGRATIONS_DIR, { recursive: true });
  // The engine reads the connector from the lock file, so it must exist before the diff.
  const lockPath = path.join(MIGRATIONS_DIR, LOCKFILE_NAME);
  if ((await readFile(lockPath, 'utf8').catch(() => undefined)) === undefined) {
    await writeFile(
      lockPath,
      '# Please do not edit this file manually\n# It should be added in your version-control system (e.g., Git)\nprovider = "postgresql"\n',
    );
  }
  const script = await diffMigrationsToSchema();
  if (!script) return undefined;
  const stamp = new Date().toISOString().replace(/\D/g, '').slice(0, 14);
  const slug =
    name
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '_')
      .replace(/^_|_$/g, '') || 'migration';
  const folder = path.join(MIGRATIONS_DIR, `${stamp}_${slug}`);
  await mkdir(folder);
  await writeFile(path.join(folder, 'migration.sql'), script);
  return folder;
}
