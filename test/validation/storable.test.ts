import { findUnstorable, MAX_PROBLEMS_PER_VALUE, unstorableDetails, unstorableText } from '../../src/validation/storable';

describe('unstorableText', () => {
  it.each([
    ['plain text', 'Espresso cup', undefined],
    ['a surrogate pair (emoji)', 'cup \ud83d\ude00', undefined],
    ['U+FFFD and other non-BMP text', '\ufffd \u{10ffff}', undefined],
    ['NUL', 'a\u0000b', 'NUL'],
    ['a lone high surrogate at the end', 'abc\ud800', 'surrogate'],
    ['a lone low surrogate at the start', '\udc00abc', 'surrogate'],
    ['two high surrogates', '\ud800\ud800\udc00', 'surrogate'],
  ])('%s', (_name, text, expected) => {
    const problem = unstorableText(text);
    if (expected === undefined) expect(problem).toBeUndefined();
    else expect(problem).toContain(expected);
  });
});

describe('findUnstorable', () => {
  it('accepts every finite double, -0 and nested JSON', () => {
    expect(findUnstorable({ a: [1e308, -1e308, 1e-320, 5e-324, -0, 2 ** 53], b: { c: null, d: true, e: 'ok' } })).toEqual([]);
  });

  it('names the path of each problem, object keys included', () => {
    const value = { name: 'x\u0000', list: [1, { deep: '\ud800' }], ['k\u0000']: 1, big: Infinity, when: new Date('0000-06-01T00:00:00Z') };
    expect(unstorableDetails(value, 'products[2]').map((d) => d.field)).toEqual([
      'products[2].name',
      'products[2].list[1].deep',
      'products[2].k\u0000',
      'products[2].big',
      'products[2].when',
    ]);
  });

  it('reports a bad key once, without descending into its value', () => {
    expect(findUnstorable({ ['\u0000']: { inner: '\u0000' } })).toEqual([
      { path: ['\u0000'], message: expect.stringContaining('Field name') },
    ]);
  });

  it(`stops after ${MAX_PROBLEMS_PER_VALUE} problems`, () => {
    expect(findUnstorable(Array.from({ length: 1000 }, () => '\u0000'))).toHaveLength(MAX_PROBLEMS_PER_VALUE);
  });

  it('walks nesting deeper than the call stack without overflowing', () => {
    let value: unknown = '\u0000';
    for (let i = 0; i < 100_000; i++) value = [value];
    expect(findUnstorable(value)).toHaveLength(1);
  });
});
