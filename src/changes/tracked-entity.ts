import type { z } from 'zod';

/**
 * The one declaration of a tracked entity (pushed by the ERP, listed and acknowledged by the
 * webshop, ADR 0036). Each domain writes one, `src/<domain>/<name>.entity.ts`, and lists it in
 * TRACKED_ENTITIES (`tracked-entities.ts`). The GraphQL operations (`registerTrackedOperations`),
 * REST route entries (`trackedRoutes`), pending counts and their metric, resync, reconciliation and
 * the change history's entity types derive from it. Names are literals here and typed as such
 * everywhere else, so a rename is a compile error and `grep syncProducts` lands on the declaration.
 */
export type TrackedEntity = TrackedEntityBase & (PushedOnItsOwn | PushedWithAnother);

type TrackedEntityBase = {
  /** The ledger table (ADR 0002): a constant of the code, never input. */
  table: string;
  /** As API callers name the entity in resync, reconciliation and history: product, sale_order… */
  entityType: string;
  /** The Prisma model, and the GraphQL object type built on it. */
  typeName: string;
  /** For descriptions and messages: "sale order", "sale orders". */
  noun: { one: string; many: string };
  /** The OpenAPI tag of its routes. */
  tag: string;
  /** REST change list; `/:id` and `/batch-delete` below it acknowledge. */
  listPath: `/v1/${string}`;
  /** The column the change list filters by, whose pending count the triggers keep per value. */
  scopeColumn?: string;
  /** Records carry an external id and a data object (what acknowledgements report and digests cover). */
  keyed: boolean;
  /**
   * Pushes write a change history of its records, readable by `history(entityType, externalId)`
   * (ADR 0031). The generic upsert (`upsertTracked`) always writes one, so only an entity with its
   * own upsert may say false (stocks: volume).
   */
  history: boolean;
  /**
   * The columns its change record shows (its GraphQL list type reads nothing else): the change
   * list selects these, with id and revision, and leaves the ledger's own columns in the table.
   */
  changeColumns: readonly string[];
};

/** What the change record of every keyed entity shows (ChangeRecord; pending_values gives `previous`). */
export const CHANGE_RECORD_COLUMNS = [
  'external_id',
  'erp_id',
  'is_new',
  'changed_fields',
  'context',
  'data',
  'updated_at',
  'pending_values',
] as const;

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
