import type { PrismaClient, Product } from '../generated/prisma/client';
import { AppError, notFound, validationFailed } from '../errors/app-error';
import { formatPath } from '../errors/zod-details';
import type { SyncErrorShape, SyncResultShape, BatchAckResultShape } from '../graphql/common-types';
import type { PageShape } from '../graphql/pages';
import { resolvePage, type PageArgs } from '../changes/pagination';
import { acknowledge, markListed } from '../changes/tracked-table';
import { upsertTracked, type IncomingRecord } from '../changes/tracked-sync';
import { MAX_IDS_PER_ACK, MAX_PRODUCTS_PER_REQUEST, productInput } from './product.input';

export const DEFAULT_CONTEXT = 'erp_sync';

export async function syncProducts(
  prisma: PrismaClient,
  records: readonly unknown[],
  context: string = DEFAULT_CONTEXT,
): Promise<SyncResultShape> {
  if (records.length > MAX_PRODUCTS_PER_REQUEST) {
    throw new AppError(
      'PAYLOAD_TOO_LARGE',
      `At most ${MAX_PRODUCTS_PER_REQUEST} products per request; got ${records.length}`,
      [{ field: 'products', message: `At most ${MAX_PRODUCTS_PER_REQUEST} items` }],
    );
  }
  const errors: SyncErrorShape[] = [];
  const valid: IncomingRecord[] = [];
  records.forEach((raw, index) => {
    const parsed = productInput.safeParse(raw);
    if (!parsed.success) {
      const externalId = (raw as { external_id?: unknown } | null)?.external_id;
      for (const issue of parsed.error.issues) {
        errors.push({
          index,
          external_id: typeof externalId === 'string' ? externalId : null,
          field: formatPath(issue.path, `products[${index}]`),
          message: issue.message,
        });
      }
      return;
    }
    const { external_id, erp_id, ...fields } = parsed.data;
    valid.push({ externalId: external_id, erpId: erp_id, fields });
  });

  const outcomes = await upsertTracked(prisma, 'products', valid, context);
  return {
    success: errors.length === 0,
    processed: outcomes.length,
    created: outcomes.filter((o) => o === 'created').length,
    updated: outcomes.filter((o) => o === 'updated').length,
    errors,
  };
}

export type ProductFilter = {
  pending?: boolean | null;
  externalId?: string | null;
  updatedSince?: Date | null;
};

/** All products for dashboards, newest change first; does not touch the acknowledgement ledger. */
export async function listProducts(
  prisma: PrismaClient,
  filter: ProductFilter,
  args: PageArgs,
): Promise<PageShape<Product>> {
  const page = resolvePage(args);
  const where = {
    ...(filter.pending != null ? { pending: filter.pending } : {}),
    ...(filter.externalId ? { externalId: filter.externalId } : {}),
    ...(filter.updatedSince ? { updatedAt: { gt: filter.updatedSince } } : {}),
  };
  const [payload, total] = await Promise.all([
    prisma.product.findMany({ where, orderBy: [{ updatedAt: 'desc' }, { id: 'desc' }], skip: page.offset, take: page.limit }),
    prisma.product.count({ where }),
  ]);
  return { payload, meta: { total, limit: page.limit, offset: page.offset } };
}

/** Products with pending changes, oldest change first; the page is remembered for the ack. */
export async function listUpdatedProducts(
  prisma: PrismaClient,
  args: PageArgs,
): Promise<PageShape<Product>> {
  const page = resolvePage(args);
  const where = { pending: true, ...(page.since ? { updatedAt: { gt: page.since } } : {}) };
  const [payload, total] = await Promise.all([
    prisma.product.findMany({
      where,
      orderBy: [{ updatedAt: 'asc' }, { id: 'asc' }],
      skip: page.offset,
      take: page.limit,
    }),
    prisma.product.count({ where }),
  ]);
  await markListed(prisma, 'products', payload);
  return { payload, meta: { total, limit: page.limit, offset: page.offset } };
}

export async function acknowledgeProduct(prisma: PrismaClient, id: number): Promise<void> {
  const found = await acknowledge(prisma, 'products', [id]);
  if (found.length === 0) throw notFound('Product', id);
}

export async function acknowledgeProducts(
  prisma: PrismaClient,
  ids: readonly number[],
): Promise<BatchAckResultShape> {
  if (ids.length > MAX_IDS_PER_ACK) {
    throw new AppError('PAYLOAD_TOO_LARGE', `At most ${MAX_IDS_PER_ACK} ids per request; got ${ids.length}`, [
      { field: 'ids', message: `At most ${MAX_IDS_PER_ACK} items` },
    ]);
  }
  if (ids.length === 0) throw validationFailed([{ field: 'ids', message: 'Must list at least one id' }]);
  const unique = [...new Set(ids)];
  const found = new Set(await acknowledge(prisma, 'products', unique));
  return {
    success: true,
    acknowledged: found.size,
    notFound: unique.filter((id) => !found.has(id)),
  };
}
