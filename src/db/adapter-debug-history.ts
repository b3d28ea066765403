import { Debug as adapterDebug } from '@prisma/driver-adapter-utils';

/**
 * The driver adapters' half of Prisma's debug history (see prisma-debug-history.ts): the pg and
 * PGlite adapters log every query with its arguments through @prisma/driver-adapter-utils, whose
 * @prisma/debug keeps the last 100 calls' arguments alive. On PGlite that history lives in the
 * embedded store's thread (ADR 0032), where the main thread's eviction cannot reach it, so the
 * thread evicts it itself after each statement that carried a bulk parameter.
 */
export const DEBUG_HISTORY_LENGTH = 100;

/** A parameter at least this long is a bulk list worth evicting (a poll's parameters are bytes). */
export const BULK_PARAMETER_CHARS = 64 * 1024;

// A namespace nobody enables by accident (unlike prisma:*), so the evictions are never printed.
export const EVICTION_NAMESPACE = 'sync-gateway:evict-prisma-debug-history';
const evictAdapterEntry = adapterDebug(EVICTION_NAMESPACE);

export function releaseAdapterParameters(): void {
  for (let i = 0; i < DEBUG_HISTORY_LENGTH; i++) evictAdapterEntry('-');
}

export function carriesBulkParameter(args: readonly unknown[]): boolean {
  return args.some((arg) => typeof arg === 'string' && arg.length >= BULK_PARAMETER_CHARS);
}
