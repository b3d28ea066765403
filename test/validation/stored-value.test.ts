import { storedValue } from '../../src/validation/stored-value';

describe('storedValue', () => {
  const DIRECTIONS = ['inbound', 'outbound'] as const;

  it('returns a stored value that is one of the values, typed as them', () => {
    const direction: 'inbound' | 'outbound' = storedValue(DIRECTIONS, 'outbound', 'sale_orders.direction');
    expect(direction).toBe('outbound');
  });

  it('refuses a value written around the API, naming the column', () => {
    expect(() => storedValue(DIRECTIONS, 'sideways', 'sale_orders.direction')).toThrow(
      'sale_orders.direction holds "sideways", not one of inbound, outbound',
    );
  });
});
