import { isDeepStrictEqual } from 'node:util';

export type FieldMap = Record<string, unknown>;

/**
 * Field-level diff with merge semantics: a field the ERP leaves out keeps its stored value,
 * so a partial push never wipes data. Values are compared deeply (objects, arrays, key order ignored).
 */
export function changedFieldNames(stored: FieldMap, incoming: FieldMap): string[] {
  return Object.keys(incoming).filter((key) => !Object.hasOwn(stored, key) || !isDeepStrictEqual(stored[key], incoming[key]));
}

export function mergeFields(stored: FieldMap, incoming: FieldMap): FieldMap {
  return { ...stored, ...incoming };
}
