import { backends } from '../support/database';
import { useApiFixture } from '../support/http';
import { pushAnswer } from '../support/push-answer';

type Node = { externalId: string; parentId: number | null; children: Node[] };

describe.each(backends)('partners over REST on %s', (backend) => {
  const ctx = useApiFixture(backend);
  const push = (partners: unknown[]) => ctx.api.request('POST', '/api/v1/partners', { body: { partners } });
  const pending = async () => (await ctx.api.request('GET', '/api/v1/updated-partners?limit=500')).body;
  const byExternalId = async () => new Map((await ctx.db.prisma.partner.findMany()).map((p) => [p.externalId, p]));

  beforeEach(async () => {
    await ctx.db.prisma.partner.deleteMany();
  });

  it('applies a batch parents first whatever its order and resolves parentId', async () => {
    const res = await push([
      { external_id: 'CONTACT', type: 'C', parent_external_id: 'BILL', name: 'Ann' },
      { external_id: 'BILL', type: 'B', parent_external_id: 'ROOT' },
      { external_id: 'ROOT', type: 'B', erp_id: 1, name: 'Example Ltd' },
    ]);
    expect(res.body).toEqual(pushAnswer({ processed: 3, created: 3 }));
    const stored = await byExternalId();
    const list = await pending();
    const contact = list.payload.find((p: { externalId: string }) => p.externalId === 'CONTACT');
    expect(contact).toEqual({
      id: stored.get('CONTACT')!.id,
      revision: 1,
      previous: null,
      externalId: 'CONTACT',
      erpId: null,
      isNew: true,
      changedFields: ['name', 'parent_external_id', 'type'],
      context: 'erp_sync',
      data: { name: 'Ann' },
      updatedAt: expect.any(String),
      parentExternalId: 'BILL',
      parentId: stored.get('BILL')!.id,
      type: 'C',
    });
    expect(stored.get('ROOT')!.parentId).toBeNull();
  });

  it('accepts a single partner object and a parent that is already stored', async () => {
    await ctx.api.request('POST', '/api/v1/partners', { body: { external_id: 'P', type: 'B' } });
    const res = await ctx.api.request('POST', '/api/v1/partners', { body: { external_id: 'K', type: 'D', parent_external_id: 'P' } });
    expect(res.body).toMatchObject({ success: true, created: 1 });
    const stored = await byExternalId();
    expect(stored.get('K')!.parentId).toBe(stored.get('P')!.id);
  });

  it('rejects an unknown type or parent for that record only', async () => {
    const res = await push([
      { external_id: 'GOOD', type: 'O' },
      { external_id: 'BAD-TYPE', type: 'X' },
      { external_id: 'ORPHAN', parent_external_id: 'NOBODY' },
      { external_id: 'ORPHAN-CHILD', parent_external_id: 'ORPHAN' },
    ]);
    expect(res.body.success).toBe(false);
    expect(res.body.processed).toBe(1);
    expect(res.body.errors).toEqual([
      { index: 1, external_id: 'BAD-TYPE', field: 'partners[1].type', message: expect.stringMatching(/B \(billing\)/), code: 'INVALID' },
      { index: 2, external_id: 'ORPHAN', field: 'partners[2].parent_external_id', message: 'unknown parent NOBODY', code: 'INVALID' },
      {
        index: 3,
        external_id: 'ORPHAN-CHILD',
        field: 'partners[3].parent_external_id',
        message: expect.stringMatching(/parent ORPHAN is rejected/),
        code: 'INVALID',
      },
    ]);
    expect([...(await byExternalId()).keys()]).toEqual(['GOOD']);
  });

  it('rejects every record of a circular reference, naming it, and stores the rest', async () => {
    const res = await push([
      { external_id: 'A', parent_external_id: 'C' },
      { external_id: 'B', parent_external_id: 'A' },
      { external_id: 'C', parent_external_id: 'B' },
      { external_id: 'FINE', type: 'B' },
    ]);
    expect(res.body.processed).toBe(1);
    expect(res.body.errors).toHaveLength(3);
    for (const error of res.body.errors) {
      expect(error.field).toMatch(/parent_external_id$/);
      expect(error.message).toMatch(/^circular reference: /);
      expect(error.message).toMatch(/A/);
      expect(error.message).toMatch(/B/);
      expect(error.message).toMatch(/C/);
    }
    expect([...(await byExternalId()).keys()]).toEqual(['FINE']);
  });

  it('detects a cycle closed through stored partners and leaves the stored tree as it was', async () => {
    await push([
      { external_id: 'TOP' },
      { external_id: 'MID', parent_external_id: 'TOP' },
      { external_id: 'LEAF', parent_external_id: 'MID' },
    ]);
    const res = await push([{ external_id: 'TOP', parent_external_id: 'LEAF' }]);
    expect(res.body.errors).toEqual([
      expect.objectContaining({
        index: 0,
        external_id: 'TOP',
        message: expect.stringMatching(/^circular reference: .*TOP.*LEAF|^circular reference: .*LEAF.*TOP/),
      }),
    ]);
    expect((await byExternalId()).get('TOP')!.parentExternalId).toBeNull();
  });

  it('re-parents a partner as a tracked change', async () => {
    await push([{ external_id: 'R1' }, { external_id: 'R2' }, { external_id: 'KID', parent_external_id: 'R1' }]);
    await ctx.api.request('POST', '/api/v1/updated-partners/batch-delete', {
      body: { ids: (await pending()).payload.map((p: { id: number }) => p.id) },
    });
    const res = await push([{ external_id: 'KID', parent_external_id: 'R2' }]);
    expect(res.body).toMatchObject({ created: 0, updated: 1 });
    const stored = await byExternalId();
    expect((await pending()).payload).toEqual([
      expect.objectContaining({ externalId: 'KID', isNew: false, changedFields: ['parent_external_id'], parentId: stored.get('R2')!.id }),
    ]);
    const one = await ctx.api.request('DELETE', `/api/v1/updated-partners/${stored.get('KID')!.id}`);
    expect(one.body).toEqual({ success: true, acknowledged: 1 });
    expect((await pending()).meta.total).toBe(0);
  });

  it('answers the whole hierarchy from the root for any member, and 404 for an unknown id', async () => {
    await push([
      { external_id: 'ROOT', type: 'B' },
      { external_id: 'D1', type: 'D', parent_external_id: 'ROOT' },
      { external_id: 'C1', type: 'C', parent_external_id: 'ROOT' },
      { external_id: 'C1a', type: 'C', parent_external_id: 'C1' },
      { external_id: 'ELSEWHERE', type: 'B' },
    ]);
    const stored = await byExternalId();
    const res = await ctx.api.request('GET', `/api/v1/updated-partners/${stored.get('C1a')!.id}/hierarchy`);
    expect(res.status).toBe(200);
    const shape = (n: Node): unknown => ({ id: n.externalId, children: n.children.map(shape) });
    expect(shape(res.body.root)).toEqual({
      id: 'ROOT',
      children: [
        { id: 'D1', children: [] },
        { id: 'C1', children: [{ id: 'C1a', children: [] }] },
      ],
    });
    expect(res.body.root).toMatchObject({ type: 'B', parentId: null, parentExternalId: null, isNew: true, data: {} });
    expect(res.body.root.children[0]).toMatchObject({ type: 'D', parentId: stored.get('ROOT')!.id });

    const missing = await ctx.api.request('GET', '/api/v1/updated-partners/999999/hierarchy');
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe('NOT_FOUND');
  });

  it('answers a tree hundreds of levels deep with thousands of nodes', async () => {
    const depth = 600;
    const chain = Array.from({ length: depth }, (_, i) => ({ external_id: `L${i}`, parent_external_id: i === 0 ? null : `L${i - 1}` }));
    const fan = Array.from({ length: 2400 }, (_, i) => ({ external_id: `F${i}`, parent_external_id: `L${i % depth}` }));
    const res = await push([...chain, ...fan].reverse());
    expect(res.body).toMatchObject({ success: true, created: 3000 });
    const leaf = (await byExternalId()).get(`L${depth - 1}`)!;
    const tree = await ctx.api.request('GET', `/api/v1/updated-partners/${leaf.id}/hierarchy`);
    expect(tree.status).toBe(200);
    let node: Node = tree.body.root;
    let levels = 1;
    let count = 0;
    const stack: Node[] = [tree.body.root];
    while (stack.length) {
      const n = stack.pop()!;
      count++;
      stack.push(...n.children);
    }
    for (;;) {
      const next = node.children.find((c) => c.externalId.startsWith('L'));
      if (!next) break;
      node = next;
      levels++;
    }
    expect(levels).toBe(depth);
    expect(count).toBe(3000);
  });

  it('lets GraphQL walk the tree through parent and children', async () => {
    await push([{ external_id: 'G-ROOT' }, { external_id: 'G-KID', parent_external_id: 'G-ROOT' }]);
    const res = await ctx.api.graphql(
      '{ partner(externalId: "G-ROOT") { externalId children { externalId parent { externalId } } } pendingChanges { partners } }',
    );
    expect(res.body.data).toEqual({
      partner: { externalId: 'G-ROOT', children: [{ externalId: 'G-KID', parent: { externalId: 'G-ROOT' } }] },
      pendingChanges: { partners: 2 },
    });
  });
});
