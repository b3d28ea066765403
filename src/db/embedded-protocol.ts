import type { IsolationLevel, SqlQuery } from '@prisma/driver-adapter-utils';
import type { QuietSettings } from './embedded-quiet';

/**
 * Messages between the main thread and the embedded store's thread (docs/adr/0032). Everything
 * crosses by structured clone: SQL text, arguments, rows (strings, numbers, Uint8Array, Date).
 */

export type EmbeddedThreadData = {
  /** The Postgres data directory; absent: an in-memory store (tests). */
  pgDir?: string;
  fsync: boolean;
  /** A transaction with no statement for this long is rolled back by the thread. */
  transactionIdleMs: number;
  /** WebAssembly memory past which the thread recycles its PGlite instance (ADR 0035); 0: never. */
  memoryCeilingBytes: number;
  /** The window after which a quiet store that worked is recycled (ADR 0039); 0: never. */
  idleRecycleMs: number;
  /** Tests: what counts as quiet and as work (QUIET_DEFAULTS otherwise). */
  quiet?: Partial<Omit<QuietSettings, 'windowMs'>>;
  /** Tests: the pre-initialised data directory for an empty pgDir (ADR 0041; the built one otherwise). */
  initialDataDir?: string;
};

/** `tx` runs the statement inside that open transaction; without it, on its own. */
export type EmbeddedRequest =
  | { op: 'query'; sql: string; params?: unknown[]; rowMode?: 'array' | 'object'; tx?: number }
  | { op: 'exec'; sql: string; tx?: number }
  | { op: 'begin'; isolationLevel?: IsolationLevel }
  | { op: 'commit'; tx: number }
  | { op: 'rollback'; tx: number }
  | { op: 'queryRaw'; query: SqlQuery; tx?: number }
  | { op: 'executeRaw'; query: SqlQuery; tx?: number }
  | { op: 'executeScript'; script: string }
  | { op: 'dump' }
  | { op: 'close' };

export type RequestEnvelope = { id: number } & EmbeddedRequest;

/** How an error crosses: Prisma's adapter errors keep their payload, so Prisma maps them as before. */
export type ThreadError =
  { kind: 'driver'; cause: Record<string, unknown> } | { kind: 'error'; message: string; name: string; fields: Record<string, unknown> };

export type ThreadMessage =
  | { type: 'ready' }
  | { type: 'reply'; id: number; result?: unknown; error?: ThreadError }
  | { type: 'log'; level: 'debug' | 'info' | 'warn' | 'error'; message: string; fields?: Record<string, unknown> }
  | { type: 'failed'; message: string }
  | {
      type: 'recycled';
      /** Past the memory ceiling (ADR 0035), or quiet after work (ADR 0039). */
      reason: 'ceiling' | 'idle';
      pauseMs: number;
      wasmBytesBefore: number;
      wasmBytesAfter: number;
      /** The process's RSS before the old instance was closed, and once it was collected (before the reopen). */
      rssBytesBefore: number;
      rssBytesCollected: number;
    };

/** An error as it crosses to the main thread. */
export function describeError(error: unknown): ThreadError {
  if (error instanceof Error && error.name === 'DriverAdapterError' && typeof error.cause === 'object' && error.cause !== null) {
    return { kind: 'driver', cause: { ...(error.cause as Record<string, unknown>) } };
  }
  if (!(error instanceof Error)) return { kind: 'error', message: String(error), name: 'Error', fields: {} };
  // Postgres's fields (code, detail, constraint…) as strings: what callers and logs look at.
  const fields = Object.fromEntries(
    Object.entries(error).filter(([, v]) => typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean'),
  );
  return { kind: 'error', message: error.message, name: error.name, fields };
}
