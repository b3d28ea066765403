/**
 * A text column's value as one of the values its writes were validated against (a zod enum on
 * input), typed without a cast. A value outside them means the row was written around the API:
 * an error naming the column, never a silently wrong enum on the wire.
 */
export function storedValue<const T extends string>(values: readonly T[], value: string, column: string): T {
  const known = values.find((v) => v === value);
  if (known === undefined) throw new Error(`${column} holds ${JSON.stringify(value)}, not one of ${values.join(', ')}`);
  return known;
}
