import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { PIECEWISE_MIN_CHARS } from '../../src/pacing/json-body';
import { PACE_CHANNEL, paceSettings, SLICE_MS } from '../../src/pacing/pace';
import { useApiFixture } from '../support/http';

/**
 * A large push gives the event loop back while it parses and validates (issue 29, ADR 0046):
 * a /health sent when the push first yields is answered before the push's parse and validation
 * are over. Asserted by the order of events (the yields are published on PACE_CHANNEL), with a
 * yield at every check (slice 0 ms), so that the order does not depend on the machine's speed.
 * The push is just large enough to be parsed piecewise (PIECEWISE_MIN_CHARS).
 */
/** Every entry is at least 70 characters of JSON: these many make a body past PIECEWISE_MIN_CHARS. */
const STOCKS = Math.ceil(PIECEWISE_MIN_CHARS / 70);

describe('a large stock push and a /health sent meanwhile', () => {
  const ctx = useApiFixture('embedded');
  afterEach(() => {
    paceSettings.sliceMs = SLICE_MS;
  });

  it('answers /health before the push has finished parsing and validating, and the push is whole', async () => {
    paceSettings.sliceMs = 0;
    const events: string[] = [];
    let health: Promise<void> | undefined;
    const onYield = (message: unknown) => {
      events.push((message as { phase: string }).phase);
      health ??= fetch(`${ctx.api.url}/health`).then(async (res) => {
        await res.text();
        events.push(`health ${res.status}`);
      });
    };
    const stocks = Array.from({ length: STOCKS }, (_, i) => ({
      supplier_external_id: 'S-yield',
      product_external_id: `P-${i}`,
      quantity: i,
    }));
    expect(JSON.stringify({ stocks }).length).toBeGreaterThan(PIECEWISE_MIN_CHARS);
    subscribe(PACE_CHANNEL, onYield);
    try {
      const res = await ctx.api.request('POST', '/api/v1/stocks', { body: { stocks } });
      events.push('push answered');
      expect(res.body).toMatchObject({ success: true, processed: STOCKS, created: STOCKS, updated: 0, errors: [] });
      await health;
    } finally {
      unsubscribe(PACE_CHANNEL, onYield);
    }
    const answered = events.indexOf('health 200');
    expect(answered).toBeGreaterThan(0);
    // Still parsing or validating (both before the transaction) after /health was answered.
    expect(events.slice(answered + 1)).toEqual(expect.arrayContaining(['stocks: validate']));
    expect(events.slice(0, answered)).toEqual(expect.arrayContaining(['json body']));
    expect(events.at(-1)).toBe('push answered');
    expect(await ctx.db.prisma.stock.count({ where: { supplierExternalId: 'S-yield' } })).toBe(STOCKS);
  });
});
