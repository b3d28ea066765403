import fc from 'fast-check';
import { parseJsonPaced, PIECEWISE_MIN_CHARS, scanJson } from '../../src/pacing/json-body';

/** JSON.parse's value or its error message: what a body parser must reproduce exactly. */
function wholeParse(text: string): { value: unknown } | { error: string } {
  try {
    return { value: JSON.parse(text) as unknown };
  } catch (error) {
    return { error: (error as Error).message };
  }
}

async function pacedParse(text: string): Promise<{ value: unknown } | { error: string }> {
  try {
    return { value: await parseJsonPaced(text, await scanJson(text)) };
  } catch (error) {
    return { error: (error as Error).message };
  }
}

/** A push body long enough to be parsed piece by piece: `{"stocks": [ …entries… ]}`. */
const entries = (count: number, extra = '') =>
  Array.from({ length: count }, (_, i) => `{"supplier_external_id":"S-${i % 7}","product_external_id":"P-${i}","quantity":${i}${extra}}`);
const big = (list: string[], before = '', after = '') => `{${before}"stocks":[${list.join(',')}]${after}}`;

describe('parseJsonPaced (a long list parsed piece by piece, ADR 0046)', () => {
  const list = entries(5_000);

  it('gives the same value as JSON.parse, in pieces', async () => {
    const text = big(list, '"context":"erp",');
    expect(text.length).toBeGreaterThan(PIECEWISE_MIN_CHARS);
    const shape = await scanJson(text);
    expect(shape.list?.cuts.length).toBeGreaterThan(2);
    expect(await pacedParse(text)).toEqual(wholeParse(text));
  });

  it.each([
    ['a trailing comma', big([...list, ''])],
    ['an empty element', big([...list.slice(0, 2500), '', ...list.slice(2500)])],
    ['a list closed by }', big(list).replace(/\]\}$/, '}}')],
    ['an unterminated string', big(list).replace('"P-4000"', '"P-4000')],
    ['a broken element', big(list).replace('"P-4000"', 'P-4000')],
    ['text after the object', `${big(list)} []`],
    ['a second object', `{"a":1}${big(list)}`],
    ['a missing closing brace', big(list).slice(0, -1)],
  ])('fails as JSON.parse does on %s', async (_name, text) => {
    const whole = wholeParse(text);
    expect(whole).toHaveProperty('error');
    expect(await pacedParse(text)).toEqual(whole);
  });

  it.each([
    ['a duplicate key (the last one wins, at the first position)', big(list, '"stocks":[1],"x":2,')],
    ['a key "__proto__"', big(list).replace('"stocks"', '"__proto__"')],
    ['an escaped key', big(list).replace('"stocks"', '"st\\u006fcks"')],
    ['the list not the last member', big(list, '', ',"context":"x"')],
    ['escapes and brackets inside strings', big(entries(5_000, ',"note":"a \\" ] , [ } {"'))],
    ['whitespace everywhere', ` \n{ "stocks" : [ ${list.join(' ,\n ')} ] } \n`],
  ])('gives the same value as JSON.parse with %s', async (_name, text) => {
    const paced = await pacedParse(text);
    expect(paced).toEqual(wholeParse(text));
    if ('value' in paced) expect(Object.keys(paced.value as object)).toEqual(Object.keys(JSON.parse(text) as object));
  });

  it('agrees with JSON.parse on mutated bodies (a character removed, doubled or replaced)', async () => {
    const base = big(entries(3_500, ',"purchase_price":1.5,"tags":["a",{"b":null}]'));
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: base.length - 1 }),
        fc.constantFrom('remove', 'double', ...'[]{},:"\\ 0'),
        async (at, change) => {
          const text =
            change === 'remove'
              ? base.slice(0, at) + base.slice(at + 1)
              : change === 'double'
                ? base.slice(0, at + 1) + base.slice(at)
                : base.slice(0, at) + change + base.slice(at + 1);
          expect(await pacedParse(text)).toEqual(wholeParse(text));
        },
      ),
      { numRuns: 40 },
    );
  });
});
