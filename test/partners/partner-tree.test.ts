import { planPartnerBatch, type PartnerLink } from '../../src/partners/partner-tree';

const links = (...pairs: Array<[string, string | null | undefined]>): PartnerLink[] =>
  pairs.map(([externalId, parentExternalId], index) => ({ index, externalId, parentExternalId }));

const orderOf = (records: PartnerLink[], plan: { order: number[] }) => plan.order.map((i) => records[i]!.externalId);

describe('planPartnerBatch', () => {
  it('orders parents before children whatever the request order', () => {
    const records = links(['child', 'mid'], ['mid', 'root'], ['root', null], ['other', null]);
    const plan = planPartnerBatch(records, new Map());
    expect(plan.rejected.size).toBe(0);
    expect(orderOf(records, plan)).toEqual(['root', 'other', 'mid', 'child']);
  });

  it('accepts a parent that is already stored, and keeps the stored parent when none is sent', () => {
    const records = links(['kid', 'stored-root'], ['stored-kid', undefined]);
    const plan = planPartnerBatch(
      records,
      new Map([
        ['stored-root', null],
        ['stored-kid', 'stored-root'],
      ]),
    );
    expect(plan.rejected.size).toBe(0);
    expect(orderOf(records, plan)).toEqual(['kid', 'stored-kid']);
  });

  it('rejects an unknown parent and the batch children that hang below it', () => {
    const records = links(['a', 'ghost'], ['b', 'a'], ['c', null]);
    const plan = planPartnerBatch(records, new Map());
    expect(plan.rejected.get(0)).toBe('unknown parent ghost');
    expect(plan.rejected.get(1)).toMatch(/parent a is rejected/);
    expect(orderOf(records, plan)).toEqual(['c']);
  });

  it('rejects every record of a cycle inside the batch, naming it, and keeps the rest', () => {
    const records = links(['x', 'y'], ['y', 'z'], ['z', 'x'], ['ok', null], ['self', 'self']);
    const plan = planPartnerBatch(records, new Map());
    for (const i of [0, 1, 2]) expect(plan.rejected.get(i)).toMatch(/^circular reference: /);
    expect(plan.rejected.get(0)).toContain('x → y → z → x');
    expect(plan.rejected.get(4)).toBe('circular reference: self → self');
    expect(orderOf(records, plan)).toEqual(['ok']);
  });

  it('detects a cycle closed through stored partners', () => {
    // Stored: leaf → mid → top. The batch makes top a child of leaf.
    const stored = new Map<string, string | null>([
      ['top', null],
      ['mid', 'top'],
      ['leaf', 'mid'],
    ]);
    const records = links(['top', 'leaf'], ['new', 'top']);
    const plan = planPartnerBatch(records, stored);
    expect(plan.rejected.get(0)).toMatch(/circular reference: .*top.*leaf.*mid|circular reference: .*leaf.*mid.*top/);
    // top stays stored (as a root), so its new child is fine.
    expect(orderOf(records, plan)).toEqual(['new']);
  });

  it('rejects a child whose new parent is rejected, but not one whose rejected parent is stored', () => {
    const stored = new Map<string, string | null>([['p', null]]);
    const records = links(['p', 'q'], ['q', 'p'], ['c1', 'p'], ['n1', 'n2'], ['n2', 'n1'], ['c2', 'n1']);
    const plan = planPartnerBatch(records, stored);
    expect(plan.rejected.has(0)).toBe(true);
    expect(plan.rejected.has(1)).toBe(true);
    expect(plan.rejected.has(2)).toBe(false);
    expect(plan.rejected.get(5)).toMatch(/parent n1/);
    expect(orderOf(records, plan)).toEqual(['c1']);
  });

  it('handles a chain thousands of levels deep without recursion', () => {
    const depth = 20_000;
    const records = links(
      ...Array.from({ length: depth }, (_, i): [string, string | null] => [`n${i}`, i === 0 ? null : `n${i - 1}`]).reverse(),
    );
    const plan = planPartnerBatch(records, new Map());
    expect(plan.rejected.size).toBe(0);
    expect(orderOf(records, plan).slice(0, 3)).toEqual(['n0', 'n1', 'n2']);

    const cyclic = links(...Array.from({ length: depth }, (_, i): [string, string] => [`c${i}`, `c${(i + 1) % depth}`]));
    const cyclicPlan = planPartnerBatch(cyclic, new Map());
    expect(cyclicPlan.rejected.size).toBe(depth);
    expect(cyclicPlan.order).toEqual([]);
  });
});
