import type { ErrorDetail } from '../errors/app-error';
import { formatPath } from '../errors/field-path';

/**
 * What PostgreSQL cannot store, found before a value reaches the database: a NUL
 * character is refused by `text` and `jsonb` alike, a lone UTF-16 surrogate makes `jsonb` fail
 * and is silently replaced by U+FFFD in `text`, a non-finite number (JSON `1e400` parses to
 * Infinity) would become `null`, and a date before year 1 is out of the range Prisma can send.
 * Finite doubles (±1e308, 1e-320, -0) are stored by jsonb and double precision on both backends.
 */
export type UnstorableValue = { path: ReadonlyArray<string | number>; message: string };

/** A record with a problem in every field is reported with this many at most. */
export const MAX_PROBLEMS_PER_VALUE = 10;

const SUSPECT = /[\0\uD800-\uDFFF]/;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Why a string cannot be stored, or undefined when it can. */
export function unstorableText(text: string): string | undefined {
  if (!SUSPECT.test(text)) return undefined;
  if (text.includes('\0')) return 'Must not contain NUL characters (\\u0000)';
  if (LONE_SURROGATE.test(text)) return 'Must not contain unpaired UTF-16 surrogates (invalid Unicode)';
  return undefined;
}

/**
 * Every place in a decoded JSON value (or GraphQL argument value) that cannot be stored, object
 * keys included, with its path. Walks iteratively: the body-limits plugin bounds the depth of
 * JSON bodies, but GraphQL variables reach here too.
 */
export function findUnstorable(value: unknown, max = MAX_PROBLEMS_PER_VALUE): UnstorableValue[] {
  const problems: UnstorableValue[] = [];
  // Paths are linked to their parent and spelled out only for a problem: a clean 10 MB batch
  // must not allocate a path array per value. A bad key waits on the stack like a value, so that
  // problems come out in document order.
  const stack: Visit[] = [{ value, parent: undefined, key: undefined }];
  while (stack.length > 0 && problems.length < max) {
    const visit = stack.pop()!;
    const current = visit.value;
    const problem = visit.badKey ?? unstorableScalar(current);
    if (problem) {
      problems.push({ path: pathOf(visit), message: problem });
    } else if (Array.isArray(current)) {
      for (let i = current.length - 1; i >= 0; i--) stack.push({ value: current[i], parent: visit, key: i });
    } else if (isPlainObject(current)) {
      const keys = Object.keys(current);
      for (let i = keys.length - 1; i >= 0; i--) {
        const key = keys[i]!;
        const keyProblem = unstorableText(key);
        stack.push({
          value: current[key],
          parent: visit,
          key,
          ...(keyProblem ? { badKey: `Field name ${JSON.stringify(key)}: ${keyProblem}` } : {}),
        });
      }
    }
  }
  return problems;
}

type Visit = { value: unknown; parent: Visit | undefined; key: string | number | undefined; badKey?: string };

function pathOf(visit: Visit): Array<string | number> {
  const path: Array<string | number> = [];
  for (let v: Visit | undefined = visit; v?.key !== undefined; v = v.parent) path.unshift(v.key);
  return path;
}

function unstorableScalar(value: unknown): string | undefined {
  if (typeof value === 'string') return unstorableText(value);
  if (typeof value === 'number') return Number.isFinite(value) ? undefined : 'Must be a finite number';
  if (value instanceof Date) {
    const time = value.getTime();
    if (Number.isNaN(time)) return 'Must be a valid date';
    // Year 0 and before: JavaScript has them, PostgreSQL reads "0000-…" as out of range.
    if (value.getUTCFullYear() < 1) return 'Must not be before 0001-01-01';
  }
  return undefined;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object') return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}

/**
 * True when `value` certainly holds nothing unstorable, checked without allocating; false when
 * findUnstorable must look (it then decides). A push's 10,000 records each went through the walk's
 * heap-allocated stack entries, garbage the collector then paused the event loop for (ADR 0046).
 */
export function plainlyStorable(value: unknown, depth = 0): boolean {
  if (typeof value === 'string') return !SUSPECT.test(value);
  if (typeof value === 'number') return Number.isFinite(value);
  if (value === null || typeof value !== 'object') return true;
  if (value instanceof Date) return unstorableScalar(value) === undefined;
  // Deeper than any body may nest (GraphQL variables in a URL are not depth-checked): the walk decides.
  if (depth >= PLAIN_CHECK_DEPTH) return false;
  if (Array.isArray(value)) {
    for (const item of value) if (!plainlyStorable(item, depth + 1)) return false;
    return true;
  }
  if (!isPlainObject(value)) return true;
  for (const key in value) {
    if (!Object.hasOwn(value, key)) continue;
    if (SUSPECT.test(key) || !plainlyStorable(value[key], depth + 1)) return false;
  }
  return true;
}

const PLAIN_CHECK_DEPTH = 64;

/** The problems of `value` as error details, fields written like `products[3].data.name`. */
export function unstorableDetails(value: unknown, prefix: string): ErrorDetail[] {
  if (plainlyStorable(value)) return [];
  return findUnstorable(value).map((p) => ({ field: formatPath(p.path, prefix) || prefix || '(body)', message: p.message }));
}
