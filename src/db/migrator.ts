import { readFile, readdir } from 'node:fs/promises';
import path from 'node:path';
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
export const LOCKFILE_NAME = 'migration_lock.toml';
export const NO_FILTERS = { externalTables: [], externalEnums: [] };

let wasmReady: Promise<void> | undefined;

/**
 * The engine leaves ~10 s timers behind after an operation, which would keep a CLI process
 * alive. Its timers are unref'd once no operation is running (never during one: a process
 * waiting on an engine timer must not exit).
 */
const engineTimers = new Set<NodeJS.Timeout>();
let runningOperations = 0;

export async function engineOperation<T>(operation: () => Promise<T>): Promise<T> {
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
export function wholeScripts(factory: SqlMigrationAwareDriverAdapterFactory): SqlMigrationAwareDriverAdapterFactory {
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
