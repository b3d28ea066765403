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

/**
 * What the change ledger knows of each tracked table (ADR 0036, ADR 0002), in the order APIs list
 * them: the facts its statements, pending counts, metrics, resync, reconciliation and history read.
 * They mirror the tables the migrations create, so the ledger lists them itself; each domain's
 * descriptor (`src/<domain>/<name>.entity.ts`) adds its API (operations, routes, push) to its
 * table's entry here, and `src/modules.ts` lists those descriptors.
 */
export const TRACKED_ENTITIES = [
  {
    table: 'products',
    entityType: 'product',
    typeName: 'Product',
    noun: { one: 'product', many: 'products' },
    changeColumns: CHANGE_RECORD_COLUMNS,
    keyed: true,
    history: true,
  },
  {
    table: 'partners',
    entityType: 'partner',
    typeName: 'Partner',
    noun: { one: 'partner', many: 'partners' },
    changeColumns: [...CHANGE_RECORD_COLUMNS, 'type', 'parent_external_id', 'parent_id'],
    keyed: true,
    history: true,
  },
  {
    table: 'sale_orders',
    entityType: 'sale_order',
    typeName: 'SaleOrder',
    noun: { one: 'sale order', many: 'sale orders' },
    scopeColumn: 'direction',
    changeColumns: [...CHANGE_RECORD_COLUMNS, 'direction', 'partner_external_id'],
    keyed: true,
    history: true,
  },
  {
    table: 'purchase_orders',
    entityType: 'purchase_order',
    typeName: 'PurchaseOrder',
    noun: { one: 'purchase order', many: 'purchase orders' },
    changeColumns: [...CHANGE_RECORD_COLUMNS, 'supplier_external_id'],
    keyed: true,
    history: true,
  },
  {
    table: 'price_items',
    entityType: 'price_item',
    typeName: 'PriceItem',
    noun: { one: 'price item', many: 'price items' },
    changeColumns: [
      'pricelist_external_id',
      'pricelist_name',
      'product_external_id',
      'price',
      'previous_price',
      'is_new',
      'start_date',
      'end_date',
      'updated_at',
    ],
    keyed: false,
    history: true,
  },
  {
    table: 'stocks',
    entityType: 'stock',
    typeName: 'Stock',
    noun: { one: 'stock entry', many: 'stock entries' },
    changeColumns: [
      'supplier_external_id',
      'product_external_id',
      'quantity',
      'previous_quantity',
      'purchase_price',
      'suggested_sale_price',
      'pending',
      'updated_at',
    ],
    keyed: false,
    // A history row per stock change would outgrow the stocks (volume): previousQuantity is their past value.
    history: false,
  },
] as const satisfies readonly LedgerEntity[];

/** The ledger's facts about one tracked table. */
export type LedgerEntity = {
  /** The ledger table (ADR 0002): a constant of the code, never input. */
  table: string;
  /** As API callers name the entity in resync, reconciliation and history: product, sale_order… */
  entityType: string;
  /** The Prisma model, and the GraphQL object type built on it. */
  typeName: string;
  /** For descriptions and messages: "sale order", "sale orders". */
  noun: { one: string; many: string };
  /** The column the change list filters by, whose pending count the triggers keep per value. */
  scopeColumn?: string;
  /**
   * The columns its change record shows (its GraphQL list type reads nothing else): the change
   * list selects these, with id and revision, and leaves the ledger's own columns in the table.
   */
  changeColumns: readonly string[];
  /** Records carry an external id and a data object (what acknowledgements report and digests cover). */
  keyed: boolean;
  /**
   * Pushes write a change history of its records, readable by `history(entityType, externalId)`
   * (ADR 0031). The generic upsert (`upsertTracked`) always writes one, so only an entity with its
   * own upsert may say false (stocks: volume).
   */
  history: boolean;
};

export type AnyTrackedEntity = (typeof TRACKED_ENTITIES)[number];

/** Table names are constants of the code, never input. */
export type TrackedTableName = AnyTrackedEntity['table'];

/** products, partners… in registry order. */
export const TRACKED_TABLES: readonly TrackedTableName[] = TRACKED_ENTITIES.map((e) => e.table);

/** The descriptor of a table. */
export const entityOfTable = <T extends TrackedTableName>(table: T): Extract<AnyTrackedEntity, { table: T }> =>
  TRACKED_ENTITIES.find((e): e is Extract<AnyTrackedEntity, { table: T }> => e.table === table)!;

/** Entities whose records carry an external id and a data object. */
export type KeyedEntity = Extract<AnyTrackedEntity, { keyed: true }>;
export const KEYED_ENTITIES: readonly KeyedEntity[] = TRACKED_ENTITIES.filter((e): e is KeyedEntity => e.keyed);

/** The column `table`'s change list may be filtered by and its pending counts are kept per value of (sale orders: direction). */
export function scopeColumnOf(table: TrackedTableName): string | undefined {
  const entity = entityOfTable(table);
  return 'scopeColumn' in entity ? entity.scopeColumn : undefined;
}
