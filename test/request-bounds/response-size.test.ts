import fc from 'fast-check';
import { jsonBytesWithin } from '../../src/request-bounds/response-size';

/** The answer-size check of ADR 0043 must agree with the serialiser byte for byte, and stop early. */
describe('jsonBytesWithin', () => {
  it('is the UTF-8 length of JSON.stringify for any value, and undefined one byte below it', () => {
    const anything = fc.anything({
      withNullPrototype: true,
      withDate: true,
      withMap: true,
      withSet: true,
      withSparseArray: true,
      withBoxedValues: true,
    });
    fc.assert(
      fc.property(anything, (value) => {
        const text = JSON.stringify(value) as string | undefined;
        const bytes = text === undefined ? 0 : Buffer.byteLength(text);
        expect(jsonBytesWithin(value, Infinity)).toBe(bytes);
        if (bytes > 0) expect(jsonBytesWithin(value, bytes - 1)).toBeUndefined();
      }),
      { numRuns: 5_000 },
    );
  });

  it('counts what GraphQL answers hold: results without prototypes, errors, non-ASCII text', () => {
    const data = Object.assign(Object.create(null) as object, { name: 'Tasse ☕ 😀', n: 1.5, gone: undefined });
    const result = { data: { list: [data, null, undefined] }, errors: [new Error('x')] };
    expect(jsonBytesWithin(result, Infinity)).toBe(Buffer.byteLength(JSON.stringify(result)));
  });

  it('gives up on a huge answer after about the bound, serialising one list item at a time', () => {
    const record = { id: 1, data: { text: 'x'.repeat(10_000) } };
    let serialised = 0;
    const spy = new Proxy(record, {
      get: (target, key, receiver) => {
        if (key === 'id') serialised++;
        return Reflect.get(target, key, receiver) as unknown;
      },
    });
    const answer = { data: { page: { payload: Array.from({ length: 10_000 }, () => spy) } } }; // 100 MB serialised
    expect(jsonBytesWithin(answer, 1_000_000)).toBeUndefined();
    expect(serialised).toBeLessThanOrEqual(101); // 1 MB of 10 KB records, and the one that crossed it
  });
});
