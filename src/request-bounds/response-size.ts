/**
 * The size of `JSON.stringify(value)` in UTF-8 bytes, or undefined as soon as it exceeds `max`,
 * without building the whole string (ADR 0043). Objects and arrays are walked; each array element
 * and each other value is serialised on its own by the native JSON.stringify, so the largest
 * string ever built is one list item (one record), and a 200 MB answer is given up after its
 * first `max` bytes. Matches JSON.stringify byte for byte: undefined, functions and symbols are
 * left out of objects and are `null` in arrays; toJSON (dates, errors) is honoured.
 */
export function jsonBytesWithin(value: unknown, max: number): number | undefined {
  let total = 0;
  const add = (bytes: number): boolean => (total += bytes) <= max;

  const walk = (v: unknown, inArray: boolean): boolean => {
    if (Array.isArray(v)) {
      if (!add(2 + Math.max(0, v.length - 1))) return false; // brackets and commas
      for (const item of v) if (!(isPlainObject(item) ? leaf(item, true) : walk(item, true))) return false;
      return true;
    }
    if (isPlainObject(v)) {
      if (!add(2)) return false;
      let first = true;
      for (const key of Object.keys(v)) {
        const item = v[key];
        if (item === undefined || typeof item === 'function' || typeof item === 'symbol') continue;
        // `"key":` and a comma before every member but the first
        if (!add(utf8Bytes(JSON.stringify(key)) + 1 + (first ? 0 : 1))) return false;
        first = false;
        if (!walk(item, false)) return false;
      }
      return true;
    }
    return leaf(v, inArray);
  };

  /** One value serialised natively: a list item, or a scalar, a date, an error. */
  const leaf = (v: unknown, inArray: boolean): boolean => {
    const text = JSON.stringify(v) as string | undefined;
    return add(text === undefined ? (inArray ? 4 : 0) : utf8Bytes(text));
  };

  return walk(value, false) ? total : undefined;
}

const isPlainObject = (v: unknown): v is Record<string, unknown> => {
  if (typeof v !== 'object' || v === null) return false;
  const proto = Object.getPrototypeOf(v) as unknown;
  // graphql-js builds result objects without a prototype; toJSON is left to JSON.stringify.
  return (proto === Object.prototype || proto === null) && typeof (v as { toJSON?: unknown }).toJSON !== 'function';
};

const utf8Bytes = (text: string): number => Buffer.byteLength(text, 'utf8');
