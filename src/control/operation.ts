import type { z } from 'zod';
import type { AppConfig } from '../config';
import type { Store } from '../db/store';
import type { SecretBox } from '../deliveries/secret-box';

/**
 * What an operation may use: the store the CLI opened (PostgreSQL, the embedded cluster of a
 * running server, or an embedded store it started itself because no process held it).
 */
export type ControlContext = {
  db: Store;
  config: AppConfig;
  /** The webhook secret box; loads ENCRYPTION_KEY or the key file in DATA_DIR (creating it) on first use. */
  secrets(): Promise<SecretBox>;
  /**
   * Tells the serving processes that a credential was revoked so that they drop it at once.
   * Returns a warning for the operator when that could not be done (the token then expires
   * from their caches within TOKEN_CACHE_TTL_MS).
   */
  announceRevocation(): Promise<string | undefined>;
};

/**
 * A named operation of the CLI. `args` is validated before anything opens the store or connects.
 */
export type ControlOperation<Schema extends z.ZodType = z.ZodType, Result = unknown> = {
  name: string;
  args: Schema;
  /** When the CLI opens the store itself it applies pending migrations first, unless this is false. */
  migrateFirst?: boolean;
  run(context: ControlContext, args: z.output<Schema>): Promise<Result>;
};

/** Keeps the argument and result types of one operation together; the registry erases them. */
export function defineOperation<Schema extends z.ZodType, Result>(
  operation: ControlOperation<Schema, Result>,
): ControlOperation<Schema, Result> {
  return operation;
}

/** The result type of an operation, for the CLI command that prints it. */
export type ResultOf<Op> = Op extends ControlOperation<z.ZodType, infer Result> ? Result : never;

/** A value as it arrives after JSON: dates become ISO strings. */
export type Json<T> = T extends Date
  ? string
  : T extends Array<infer Item>
    ? Array<Json<Item>>
    : T extends object
      ? { [K in keyof T]: Json<T[K]> }
      : T;

/** Operations answer through this, so that the CLI prints the same thing whichever process ran them. */
export function asJson<T>(value: T): Json<T> {
  return JSON.parse(JSON.stringify(value)) as Json<T>;
}
