import { createToken } from '../../src/auth/token.service';
import { createChannel } from '../../src/channels/channel.service';
import { backends } from '../support/database';
import { useApiFixture } from '../support/http';

/**
 * Dashboard relations resolve in a fixed number of queries whatever the page size: the count
 * for 30 parents must equal the count for 3.
 */
describe.each(backends)('GraphQL relations without N+1 on %s', (backend) => {
  const ctx = useApiFixture(backend);

  async function seed(n: number): Promise<void> {
    await ctx.db.prisma.purchaseOrder.deleteMany();
    await ctx.db.prisma.stock.deleteMany();
    await ctx.db.prisma.priceItem.deleteMany();
    await ctx.db.prisma.product.deleteMany();
    await ctx.db.prisma.partner.deleteMany();
    const ids = Array.from({ length: n }, (_, i) => `N${i}`);
    await ctx.api.request('POST', '/api/v1/products', {
      body: {
        products: ids.map((id) => ({
          external_id: id,
          pricelists: [
            { pricelist_external_id: 'A', pricelist_name: 'A', price: 1 },
            { pricelist_external_id: 'B', pricelist_name: 'B', price: 2 },
          ],
          purchase_orders: [
            { external_id: `PO-${id}`, supplier_external_id: 'S', lines: [{ product_external_id: id, quantity: 1, price: 1 }] },
          ],
        })),
      },
    });
    await ctx.api.request('POST', '/api/v1/stocks', {
      body: { stocks: ids.flatMap((id) => ['S1', 'S2'].map((s) => ({ supplier_external_id: s, product_external_id: id, quantity: 1 }))) },
    });
    await ctx.api.request('POST', '/api/v1/partners', {
      body: { partners: ids.flatMap((id) => [{ external_id: id }, { external_id: `${id}-kid`, parent_external_id: id }]) },
    });
  }

  async function queriesFor(query: string, token?: string): Promise<number> {
    const before = ctx.db.queryCount();
    const res = await ctx.api.request('POST', '/graphql', { body: { query }, ...(token ? { token } : {}) });
    expect(res.body.errors).toBeUndefined();
    // The bearer-token check is part of every request and costs the same each time.
    return ctx.db.queryCount() - before;
  }

  it.each([
    ['product → price items and stock', '{ products(limit: 100) { payload { externalId priceItems { price } stock { quantity } } } }'],
    ['partner → children and parent', '{ partners(limit: 100) { payload { externalId parent { externalId } children { externalId } } } }'],
    ['purchase order → lines', '{ purchaseOrders(limit: 100) { payload { externalId lines { productExternalId } } } }'],
  ])('%s', async (_name, query) => {
    await seed(3);
    const few = await queriesFor(query);
    await seed(30);
    const many = await queriesFor(query);
    expect(many).toBe(few);
  });

  // A token bound to a channel reads the ledger fields of rows read as stored from its channel's
  // state: one statement per table, not per row (channelStateLoader, src/changes/ledger-view.schema.ts).
  it.each([
    [
      'product → price items and stock',
      '{ products(limit: 100) { payload { isNew pending changedFields previous priceItems { isNew } stock { isQuantityChanged } } } }',
    ],
    [
      'partner → children and parent',
      '{ partners(limit: 100, filter: { pending: true }) { payload { isNew parent { pending } children { changedFields } } } }',
    ],
    ['purchase order', '{ purchaseOrders(limit: 100) { payload { pending isNew previous } } }'],
  ])('%s, ledger fields on a channel', async (_name, query) => {
    const channel = `np-${Math.random().toString(36).slice(2, 8)}`;
    await createChannel(ctx.db.prisma, channel, 'all');
    const { token } = await createToken(ctx.db.prisma, `${channel}-shop`, 'webshop', channel);
    await seed(3);
    const few = await queriesFor(query, token);
    await seed(30);
    const many = await queriesFor(query, token);
    expect(many).toBe(few);
  });
});
