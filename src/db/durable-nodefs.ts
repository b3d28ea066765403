import { execFile } from 'node:child_process';
import { closeSync, fdatasyncSync, fsyncSync, openSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { PGlite } from '@electric-sql/pglite';
import { NodeFS } from '@electric-sql/pglite/nodefs';
import type { Logger } from 'pino';
import { embeddedSettingParams } from './embedded-settings';

/*
 * PGlite starts Postgres with `-F` (fsync off), and Emscripten's NODEFS has no fsync stream
 * operation: a commit writes its WAL with pwrite and nothing ever reaches stable storage.
 * Here Postgres runs with fsync on and wal_sync_method=fsync (fdatasync is a stub in the wasm
 * build; fsync goes through WASI fd_sync to the stream operation added below), so every commit,
 * checkpoint, control-file update and directory change is synced where PostgreSQL syncs it,
 * before the statement returns. See docs/adr/0011-durable-embedded-writes.md.
 */

type EmscriptenNode = { parent: EmscriptenNode; name: string; mode: number; mount: { opts: { root: string } } };
type EmscriptenStream = { node: EmscriptenNode; nfd?: number };
type NodeFsOps = {
  realPath(node: EmscriptenNode): string;
  stream_ops: Record<string, ((...args: never[]) => unknown) | undefined>;
  node_ops: Record<string, ((...args: never[]) => unknown) | undefined>;
};
type EmscriptenModule = { FS: { filesystems: { NODEFS: NodeFsOps }; isDir(mode: number): boolean } };
type EmscriptenOptions = { preRun?: Array<(module: EmscriptenModule) => void> };

/** Where the store's warnings go: pino's logger, or the store thread's forwarder to it. */
export type StoreLogger = Pick<Logger, 'warn'>;

export type SyncCounters = {
  /** fsync/fdatasync calls that reached the operating system. */
  synced: number;
  /** Requests for files not written since the last sync of the whole file system (nothing to do). */
  skippedClean: number;
};

/**
 * Which files and directories this process changed since the data directory was last synced as
 * a whole. Until such a sync has happened every file counts as dirty: nothing is skipped.
 */
class DirtyTracker {
  private baselineSynced = false;
  private readonly dirty = new Set<string>();

  markBaselineSynced(): void {
    this.baselineSynced = true;
    this.dirty.clear();
  }

  markDirty(hostPath: string): void {
    if (this.baselineSynced) this.dirty.add(hostPath);
  }

  needsSync(hostPath: string): boolean {
    return !this.baselineSynced || this.dirty.has(hostPath);
  }

  synced(hostPath: string): void {
    this.dirty.delete(hostPath);
  }
}

/** PGlite's Node file system with fsync that reaches the disk. */
export class DurableNodeFS extends NodeFS {
  readonly counters: SyncCounters = { synced: 0, skippedClean: 0 };
  private readonly tracker = new DirtyTracker();

  constructor(private readonly hostDir: string) {
    super(hostDir);
  }

  override async init(pg: PGlite, options: Parameters<NodeFS['init']>[1]) {
    const result = await super.init(pg, options);
    const emscriptenOpts = result.emscriptenOpts as EmscriptenOptions;
    // PGlite runs initdb through a second instance on this same object: each instance needs the hooks.
    emscriptenOpts.preRun = [...(emscriptenOpts.preRun ?? []), (module) => this.install(module.FS)];
    return result;
  }

  /**
   * Lets go of the instance last opened on it, once that is closed: the base class keeps it until
   * the next init, which would keep its memory alive through a recycle (ADR 0035).
   */
  releaseClosedInstance(): void {
    delete this.pg;
  }

  /**
   * One sync of the file system holding the data directory (syncfs(2) via coreutils' `sync -f`).
   * After it, Postgres's own walk over every file after an unclean stop (SyncDataDirectory, an
   * fsync per file: seconds on a disk that flushes its cache on each) only syncs what this process
   * has written since. Returns false when the sync could not be made; nothing is skipped then.
   */
  async syncWholeDirectory(logger?: StoreLogger): Promise<boolean> {
    try {
      await syncFileSystemOf(this.hostDir);
      this.tracker.markBaselineSynced();
      return true;
    } catch (error) {
      logger?.warn({ err: error }, 'could not sync the data directory at once; Postgres syncs it file by file');
      return false;
    }
  }

  private install(fs: EmscriptenModule['FS']): void {
    const NODEFS = fs.filesystems.NODEFS;
    const tracker = this.tracker;
    const counters = this.counters;
    const hostPathOf = (node: EmscriptenNode) => NODEFS.realPath(node);
    const childPath = (parent: EmscriptenNode, name: string) => path.join(hostPathOf(parent), name);

    wrap(NODEFS.stream_ops, 'write', (stream: EmscriptenStream) => tracker.markDirty(hostPathOf(stream.node)));
    wrap(NODEFS.stream_ops, 'msync', (stream: EmscriptenStream) => tracker.markDirty(hostPathOf(stream.node)));
    wrap(NODEFS.node_ops, 'setattr', (node: EmscriptenNode) => tracker.markDirty(hostPathOf(node)));
    for (const op of ['mknod', 'unlink', 'rmdir', 'symlink'] as const) {
      wrap(NODEFS.node_ops, op, (parent: EmscriptenNode, name: string) => {
        tracker.markDirty(hostPathOf(parent));
        tracker.markDirty(childPath(parent, name));
      });
    }
    wrap(NODEFS.node_ops, 'rename', (node: EmscriptenNode, newDir: EmscriptenNode, newName: string) => {
      tracker.markDirty(hostPathOf(node.parent));
      tracker.markDirty(hostPathOf(newDir));
      tracker.markDirty(childPath(newDir, newName));
    });

    NODEFS.stream_ops.fsync = ((stream: EmscriptenStream) => {
      const hostPath = hostPathOf(stream.node);
      if (!tracker.needsSync(hostPath)) {
        counters.skippedClean++;
        return 0;
      }
      // The emulated stream of a directory has no host descriptor: open one to sync the entries.
      if (stream.nfd === undefined) syncPath(hostPath);
      // WAL segments are preallocated: their size never changes, so data sync is enough (as PostgreSQL's default).
      else if (isWalSegment(hostPath)) fdatasyncSync(stream.nfd);
      else fsyncSync(stream.nfd);
      counters.synced++;
      tracker.synced(hostPath);
      return 0;
    }) as (...args: never[]) => unknown;
  }
}

/** Everything written to the file system holding `dir` on stable storage: syncfs(2) via coreutils' `sync -f`. */
export async function syncFileSystemOf(dir: string): Promise<void> {
  await promisify(execFile)('sync', ['-f', dir], { timeout: 60_000 });
}

/** Postgres start parameters: PGlite's own, with fsync on and WAL synced by fsync(). */
export function durableStartParams(): string[] {
  return [...PGlite.defaultStartParams.filter((param) => param !== '-F'), '-c', 'fsync=on', '-c', 'wal_sync_method=fsync'];
}

/**
 * Opens the embedded store under `pgDir`. With `fsync` (the default) a write returns only once its
 * WAL is on stable storage; without it PGlite's stock behaviour (an OS crash can lose or corrupt).
 */
export async function openEmbeddedStore(pgDir: string, options: { fsync: boolean; logger?: StoreLogger }): Promise<PGlite> {
  return (await embeddedStoreOpener(pgDir, options)).open();
}

export type EmbeddedStoreOpener = {
  open(): Promise<PGlite>;
  /** Once the instance last opened is closed: drops every reference this opener keeps to it. */
  releaseClosed(): void;
};

/**
 * The open path of the embedded store, reusable: each call opens a fresh PGlite on the same data
 * directory with the same file system and settings (the recycle of ADR 0035). The durable file
 * system is one object across instances, so its record of what was written since the whole
 * directory was synced stays true and the directory is synced at once only the first time.
 */
export async function embeddedStoreOpener(pgDir: string, options: { fsync: boolean; logger?: StoreLogger }): Promise<EmbeddedStoreOpener> {
  if (!options.fsync) {
    options.logger?.warn('EMBEDDED_FSYNC=false: an OS crash or power cut can lose acknowledged writes or corrupt the store');
    return {
      open: () => PGlite.create({ dataDir: pgDir, startParams: [...PGlite.defaultStartParams, ...embeddedSettingParams()] }),
      // Each instance has a file system of its own.
      releaseClosed: () => undefined,
    };
  }
  const fs = new DurableNodeFS(pgDir);
  await fs.syncWholeDirectory(options.logger);
  return {
    open: () => PGlite.create({ fs, startParams: [...durableStartParams(), ...embeddedSettingParams()] }),
    releaseClosed: () => fs.releaseClosedInstance(),
  };
}

function isWalSegment(hostPath: string): boolean {
  return path.basename(path.dirname(hostPath)) === 'pg_wal' && /^[0-9A-F]{24}$/.test(path.basename(hostPath));
}

function syncPath(hostPath: string): void {
  const fd = openSync(hostPath, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** Calls `before` ahead of an Emscripten operation (the operation itself is unchanged). */
function wrap<Args extends unknown[]>(
  ops: Record<string, ((...args: never[]) => unknown) | undefined>,
  name: string,
  before: (...args: Args) => void,
): void {
  const original = ops[name] as ((...args: Args) => unknown) | undefined;
  if (!original) throw new Error(`PGlite's NODEFS has no ${name} operation: the durability hooks need updating`);
  ops[name] = ((...args: Args) => {
    before(...args);
    return original.apply(ops, args);
  }) as (...args: never[]) => unknown;
}
