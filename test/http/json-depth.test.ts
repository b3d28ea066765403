import { scanJson } from '../../src/pacing/json-body';

const jsonDepth = async (text: string) => (await scanJson(text)).depth;

describe('jsonDepth', () => {
  it('counts nesting of arrays and objects, not brackets inside strings', async () => {
    expect(await jsonDepth('1')).toBe(0);
    expect(await jsonDepth('{"a": [1, {"b": []}]}')).toBe(4);
    expect(await jsonDepth('{"a": "[[[[{{{{"}')).toBe(1);
    expect(await jsonDepth('{"a": "quote \\" then [[[["}')).toBe(1);
    expect(await jsonDepth(`${'['.repeat(100_000)}${']'.repeat(100_000)}`)).toBe(100_000);
    // Deeper than one slice of the scan, and an escape right at a slice's end.
    expect(await jsonDepth(`${'['.repeat(2_000_000)}${']'.repeat(2_000_000)}`)).toBe(2_000_000);
  });
});
