import { changedFieldNames, mergeFields } from '../../src/changes/diff';

describe('changedFieldNames', () => {
  it('reports fields whose value differs', () => {
    expect(changedFieldNames({ name: 'a', price: 1 }, { name: 'b', price: 1 })).toEqual(['name']);
  });

  it('reports fields that were not stored before', () => {
    expect(changedFieldNames({ name: 'a' }, { name: 'a', color: 'red' })).toEqual(['color']);
  });

  it('ignores fields left out of the incoming record', () => {
    expect(changedFieldNames({ name: 'a', price: 1 }, { price: 1 })).toEqual([]);
  });

  it('compares nested objects deeply, whatever their key order', () => {
    expect(changedFieldNames({ dims: { w: 1, h: 2 } }, { dims: { h: 2, w: 1 } })).toEqual([]);
    expect(changedFieldNames({ dims: { w: 1, h: 2 } }, { dims: { h: 2, w: 3 } })).toEqual(['dims']);
  });

  it('compares arrays by position and content', () => {
    expect(changedFieldNames({ tags: ['a', 'b'] }, { tags: ['a', 'b'] })).toEqual([]);
    expect(changedFieldNames({ tags: ['a', 'b'] }, { tags: ['b', 'a'] })).toEqual(['tags']);
    expect(changedFieldNames({ tags: [{ x: 1 }] }, { tags: [{ x: 2 }] })).toEqual(['tags']);
  });

  it('distinguishes null, a missing value and type changes', () => {
    expect(changedFieldNames({ price: 1 }, { price: null })).toEqual(['price']);
    expect(changedFieldNames({ price: null }, { price: null })).toEqual([]);
    expect(changedFieldNames({ price: 1 }, { price: '1' })).toEqual(['price']);
    expect(changedFieldNames({}, { price: null })).toEqual(['price']);
  });

  it('treats equal numbers as equal however they were written', () => {
    expect(changedFieldNames({ price: 7.5 }, { price: 7.5 })).toEqual([]);
    expect(changedFieldNames({ price: 1 }, { price: 1.0 })).toEqual([]);
  });
});

describe('mergeFields', () => {
  it('keeps stored fields and overrides the incoming ones', () => {
    expect(mergeFields({ a: 1, b: 2 }, { b: 3, c: 4 })).toEqual({ a: 1, b: 3, c: 4 });
  });
});
