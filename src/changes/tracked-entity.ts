import type { z } from 'zod';
import type { LedgerEntity, TrackedTableName } from './tracked-entities';

/**
 * A tracked entity's API (pushed by the ERP, listed and acknowledged by the webshop, ADR 0036):
 * its table's ledger entry (TRACKED_ENTITIES in `tracked-entities.ts`) plus the operations, routes
 * and push that each domain declares in `src/<domain>/<name>.entity.ts`; `src/modules.ts` lists
 * them. The GraphQL operations (`registerTrackedOperations`) and REST route entries
 * (`trackedRoutes`) derive from it. Names are literals here and typed as such everywhere else, so
 * a rename is a compile error and `grep syncProducts` lands on the declaration.
 */
export type TrackedEntity = LedgerEntity & { table: TrackedTableName } & TrackedApi & (PushedOnItsOwn | PushedWithAnother);

type TrackedApi = {
  /** The OpenAPI tag of its routes. */
  tag: string;
  /** REST change list; `/:id` and `/batch-delete` below it acknowledge. */
  listPath: `/v1/${string}`;
};

type Operations = {
  /** The change list query. */
  list: `updated${string}` | `changed${string}`;
  /** Batch acknowledgement. */
  ackMany: `acknowledge${string}`;
  /** Single acknowledgement, where the entity has one. */
  ackOne?: `acknowledge${string}`;
  /** Its field of PendingChanges. */
  pendingCount: string;
};

/** An entity the ERP pushes on its own route. */
type PushedOnItsOwn = { operations: Operations & { sync: `sync${string}` }; push: TrackedPush };

/** An entity that arrives inside another's push (price items come with products). */
type PushedWithAnother = { operations: Operations & { sync?: undefined }; push?: undefined };

export type TrackedPush = {
  /** REST path of the push. */
  path: `/v1/${string}`;
  /** The list argument, as REST bodies name it: products, sale_orders… */
  listArg: string;
  maxItems: number;
  /** One record, as the ERP sends it; `name` is its OpenAPI component. */
  input: { name: `${string}Input`; schema: z.ZodType };
  /** Whether records carry a context label (stock entries do not). */
  context: boolean;
};

/** "Sale order" from "sale order". */
export const capitalize = (s: string): string => `${s[0]!.toUpperCase()}${s.slice(1)}`;
