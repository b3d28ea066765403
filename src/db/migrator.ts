import { mkdir, readFile, readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { PrismaPGlite } from 'pglite-prisma-adapter';
import { bindMigrationAwareSqlAdapterFactory, type SqlMigrationAwareDriverAdapterFactory } from '@prisma/driver-adapter-utils';
import * as engineGlue from '@prisma/schema-engine-wasm/schema_engine_bg';
import type { MigrationList, SchemaEngine } from '@prisma/schema-engine-wasm/schema_engine_bg';

/**
 * Prisma's migration engine compiled to WebAssembly, driven through a driver adapter.
 * Prisma's CLI would download a native engine at run time; an on-prem ERP network is often
 * closed, so migrations must work offline. Same engine code as `prisma migrate deploy`,
 * so `_prisma_migrations` is recorded exactly as the native engine records it.
 */

export const PRISMA_DIR = path.resolve(__dirname, '..', '..', 'prisma');
export const SCHEMA_PATH = path.join(PRISMA_DIR, 'schema.prisma');
export const MIGRATIONS_DIR = path.join(PRISMA_DIR, 'migrations');
const LOCKFILE_NAME = 'migration_lock.toml';
const NO_FILTERS = { externalTables: [], externalEnums: [] };

let wasmReady: Promise<void> | undefined;

/**
 * The engine leaves ~10 s timers behind after an operation, which would keep a CLI process
 * alive. Its timers are unref'd once no operation is running (never during one: a process
 * waiting on an engine timer must not exit).
 */
const engineTimers = new Set<NodeJS.Timeout>();
let runningOperations = 0;

async function engineOperation<T>(operation: () => Promise<T>): Promise<T> {
  runningOperations++;
  try {
    return await operation();
  } finally {
    if (--runningOperations === 0) {
      for (const timer of engineTimers) timer.unref();
      engineTimers.clear();
    }
  }
}

function wasmImports(): WebAssembly.ModuleImports {
  const imports: Record<string, unknown> = { ...engineGlue };
  const setTimeoutImport = Object.keys(imports).find((name) => name.startsWith('__wbg_setTimeout_'));
  if (setTimeoutImport) {
    imports[setTimeoutImport] = (callback: () => void, ms: number) => {
      const timer = setTimeout(() => {
        engineTimers.delete(timer);
        callback();
      }, ms >>> 0);
      if (runningOperations === 0) timer.unref();
      else engineTimers.add(timer);
      return timer;
    };
  }
  return imports as WebAssembly.ModuleImports;
}

/** The package's exports hide the .wasm and Node cannot import it as ESM, so it is loaded by path. */
function loadWasm(): Promise<void> {
  wasmReady ??= (async () => {
    const wasmPath = path.join(path.dirname(require.resolve('@prisma/schema-engine-wasm/schema_engine_bg')), 'schema_engine_bg.wasm');
    const { instance } = await WebAssembly.instantiate(await readFile(wasmPath), {
      './schema_engine_bg.js': wasmImports(),
    });
    const exports = instance.exports as WebAssembly.Exports & { __wbindgen_start(): void };
    engineGlue.__wbg_set_wasm(exports);
    exports.__wbindgen_start();
  })();
  return wasmReady;
}

export type EngineLog = (message: string) => void;

export async function openSchemaEngine(
  adapterFactory: SqlMigrationAwareDriverAdapterFactory,
  log: EngineLog = () => {},
): Promise<SchemaEngine> {
  await loadWasm();
  const datamodel = await readFile(SCHEMA_PATH, 'utf8');
  return engineGlue.SchemaEngine.new(
    { datamodels: [[SCHEMA_PATH, datamodel]] },
    (line: string) => log(line),
    bindMigrationAwareSqlAdapterFactory(adapterFactory),
  );
}

/** Reads prisma/migrations in the layout the Prisma CLI writes and reads. */
export async function readMigrationList(dir = MIGRATIONS_DIR): Promise<MigrationList> {
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  const names = entries
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
    .sort();
  const migrationDirectories = await Promise.all(
    names.map(async (name) => {
      const content = await readFile(path.join(dir, name, 'migration.sql'), 'utf8').then(
        (text) => ({ tag: 'ok' as const, value: text }),
        (error: Error) => ({ tag: 'error' as const, value: error.message }),
      );
      return { path: name, migrationFile: { path: 'migration.sql', content } };
    }),
  );
  const lockContent = await readFile(path.join(dir, LOCKFILE_NAME), 'utf8').catch(() => null);
  return {
    baseDir: dir,
    lockfile: { path: LOCKFILE_NAME, content: lockContent },
    shadowDbInitScript: '',
    migrationDirectories,
  } as MigrationList;
}

/** Applies pending migrations; returns the names applied by this call. */
export async function applyMigrations(adapterFactory: SqlMigrationAwareDriverAdapterFactory, log?: EngineLog): Promise<string[]> {
  return engineOperation(async () => {
    const engine = await openSchemaEngine(wholeScripts(adapterFactory), log);
    try {
      const { appliedMigrationNames } = await engine.applyMigrations({
        migrationsList: await readMigrationList(),
        filters: NO_FILTERS,
      });
      return appliedMigrationNames;
    } finally {
      engine.free();
    }
  });
}

/**
 * @prisma/adapter-pg runs a migration by splitting it at every ';' and sending the pieces one by
 * one, which cuts a PL/pgSQL body apart (the pending-count triggers, ADR 0030) and applies half a
 * migration when a later statement fails. PostgreSQL takes the whole script as one simple query
 * (a query without parameters), in one implicit transaction, as Prisma's native engine sends it.
 */
function wholeScripts(factory: SqlMigrationAwareDriverAdapterFactory): SqlMigrationAwareDriverAdapterFactory {
  if (factory.adapterName !== '@prisma/adapter-pg') return factory;
  const connect = factory.connect.bind(factory);
  return Object.assign(Object.create(factory) as SqlMigrationAwareDriverAdapterFactory, {
    async connect() {
      const adapter = await connect();
      adapter.executeScript = async (script: string) => {
        await adapter.executeRaw({ sql: script, args: [], argTypes: [] });
      };
      return adapter;
    },
  });
}

/**
 * SQL that would bring a database built from the committed migrations up to schema.prisma;
 * empty when they agree. Runs offline on in-memory PGlite, the shadow database included.
 */
export async function diffMigrationsToSchema(): Promise<string> {
  const main = await PGlite.create();
  const shadows: PGlite[] = [];
  // The adapter's own shadow database is never closed and keeps the process alive; this one is.
  const adapterFactory = new PrismaPGlite(main);
  adapterFactory.connectToShadowDb = async () => {
    const shadow = await PGlite.create();
    shadows.push(shadow);
    return new PrismaPGlite(shadow).connect();
  };
  try {
    return await engineOperation(async () => {
      const engine = await openSchemaEngine(adapterFactory);
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
    await Promise.all([main, ...shadows].map((db) => db.close()));
  }
}

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
