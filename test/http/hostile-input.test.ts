import {
  getNamedType,
  GraphQLInt,
  GraphQLString,
  isEnumType,
  isInputObjectType,
  isListType,
  isNonNullType,
  isScalarType,
  type GraphQLArgument,
} from 'graphql';
import { restRoutes, schema } from '../../src/modules';
import { fullPath, type RestRoute } from '../../src/routing/route-table';
import { isPerRecordBatch } from '../../src/validation/graphql-arguments';
import { httpBackends } from '../support/database';
import { fingerprint as fingerprintOf } from '../support/fingerprint';
import { useApiFixture } from '../support/http';
import { createToken } from '../../src/auth/token.service';

type Case = {
  route: string;
  name: string;
  method: string;
  path: string;
  body?: string | Buffer;
  contentType?: string;
  status: number;
  code: string;
  field?: string;
};

const argsOf = (route: RestRoute): readonly GraphQLArgument[] => {
  const [root, name] = route.field.split('.') as ['Query' | 'Mutation', string];
  return (root === 'Query' ? schema.getQueryType() : schema.getMutationType())!.getFields()[name]!.args;
};
const pathParams = (route: RestRoute) => [...route.path.matchAll(/:(\w+)/g)].map((m) => m[1]!);
const inBody = (route: RestRoute, arg: GraphQLArgument) =>
  route.method === 'POST' && !pathParams(route).includes(arg.name) && !route.queryArgs?.includes(arg.name);

/** A path with valid placeholders, optionally one parameter replaced. */
function pathFor(route: RestRoute, override?: [string, string], raw = false): string {
  return fullPath(route).replace(/:(\w+)/g, (_m, name: string) => {
    if (override?.[0] === name) return raw ? override[1] : encodeURIComponent(override[1]);
    const arg = argsOf(route).find((a) => a.name === name)!;
    const type = getNamedType(arg.type);
    return type === GraphQLInt ? '1' : isEnumType(type) ? type.getValues()[0]!.name : 'X';
  });
}

/** Query parameters every required query argument needs, so that only the case under test is wrong. */
function requiredQuery(route: RestRoute, skip?: string): string {
  const parts = argsOf(route)
    .filter((a) => isNonNullType(a.type) && a.name !== skip && !pathParams(route).includes(a.name) && !inBody(route, a))
    .map((a) => `${a.name}=X`);
  return parts.length ? `?${parts.join('&')}` : '';
}

function casesFor(route: RestRoute): Case[] {
  const cases: Case[] = [];
  const tag = `${route.method} ${route.path}`;
  const base = { route: tag, method: route.method, status: 400, code: 'VALIDATION_FAILED' };

  for (const name of pathParams(route)) {
    const arg = argsOf(route).find((a) => a.name === name)!;
    const type = getNamedType(arg.type);
    const bad =
      type === GraphQLInt ? ['abc', '1.5', '1 OR 1=1', '9'.repeat(30)] : isEnumType(type) ? ['nope', "x'; DROP TABLE products; --"] : [];
    for (const value of bad)
      cases.push({ ...base, name: `${tag}: path ${name}=${value.slice(0, 20)}`, path: pathFor(route, [name, value]), field: name });
    cases.push({ ...base, name: `${tag}: path ${name} with NUL`, path: pathFor(route, [name, 'a\u0000b']), field: name });
    for (const raw of NOT_UTF8)
      cases.push({ ...base, name: `${tag}: path ${name}=${raw}`, path: pathFor(route, [name, raw], true), field: name });
  }

  for (const arg of argsOf(route)) {
    if (pathParams(route).includes(arg.name) || inBody(route, arg)) continue;
    const type = getNamedType(arg.type);
    const bad =
      type === GraphQLInt
        ? ['abc', '1.5', '-1']
        : type.name === 'DateTime'
          ? ['yesterday', '2026-13-45T00:00:00Z', "' OR 1=1 --", '0000-01-01T00:00:00Z']
          : isEnumType(type)
            ? ['sideways', "'; DROP TABLE stocks; --"]
            : [];
    const withQuery = (encoded: string) =>
      `${pathFor(route)}${requiredQuery(route, arg.name)}${requiredQuery(route, arg.name) ? '&' : '?'}${arg.name}=${encoded}`;
    for (const value of bad) {
      cases.push({ ...base, name: `${tag}: ${arg.name}=${value}`, path: withQuery(encodeURIComponent(value)), field: arg.name });
    }
    cases.push({ ...base, name: `${tag}: ${arg.name} with NUL`, path: withQuery('a%00b'), field: arg.name });
    for (const raw of NOT_UTF8) cases.push({ ...base, name: `${tag}: ${arg.name}=${raw}`, path: withQuery(raw), field: arg.name });
    if (isNonNullType(arg.type) && isScalarType(type) && type !== GraphQLInt) {
      cases.push({
        ...base,
        name: `${tag}: missing ${arg.name}`,
        path: `${pathFor(route)}${requiredQuery(route, arg.name)}`,
        field: arg.name,
      });
    }
  }

  if (route.method === 'POST') {
    const path = `${pathFor(route)}${requiredQuery(route)}`;
    const body = (name: string, text: string | Buffer, extra: Partial<Case> = {}): Case => ({
      ...base,
      name: `${tag}: ${name}`,
      path,
      body: text,
      ...extra,
    });
    cases.push(
      body('malformed JSON', '{"ids": [1,', { field: '(body)' }),
      body('an array body', '[1, 2, 3]', { field: '(body)' }),
      body('a string body', '"hello"', { field: '(body)' }),
      body('invalid UTF-8', Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x3a, 0x31, 0x7d]), { field: '(body)' }),
      body('JSON nested 10,000 deep', `{"x": ${'['.repeat(10_000)}${']'.repeat(10_000)}}`, { field: '(body)' }),
      body('a form body', 'external_id=1', {
        contentType: 'application/x-www-form-urlencoded',
        status: 415,
        code: 'UNSUPPORTED_MEDIA_TYPE',
      }),
    );
    for (const arg of argsOf(route).filter((a) => inBody(route, a))) {
      const listType = isNonNullType(arg.type) ? arg.type.ofType : arg.type;
      if (isListType(listType)) {
        cases.push(body(`${arg.name} as an object`, JSON.stringify({ [arg.name]: { a: 1 } }), { field: arg.name }));
        if (getNamedType(arg.type) === GraphQLInt)
          cases.push(body(`${arg.name} with text`, JSON.stringify({ [arg.name]: ['x'] }), { field: `${arg.name}[0]` }));
      } else if (getNamedType(arg.type) === GraphQLInt) {
        cases.push(body(`${arg.name} as text`, JSON.stringify({ [arg.name]: 'many' }), { field: arg.name }));
      } else if (isEnumType(getNamedType(arg.type))) {
        cases.push(body(`${arg.name} unknown`, JSON.stringify({ [arg.name]: 'nonsense' }), { field: arg.name }));
      }
      if (isNonNullType(arg.type) && !route.singleItemArg) cases.push(body(`missing ${arg.name}`, '{}', { field: arg.name }));
      for (const [label, value, field] of unstorableValuesFor(arg)) {
        cases.push(body(`${arg.name} ${label}`, JSON.stringify({ [arg.name]: value }), { field }));
      }
    }
    if (route.strictBody)
      cases.push(body('an unknown field', JSON.stringify({ injected: "'; DROP TABLE sync_failures; --" }), { field: 'injected' }));
  }
  return cases;
}

/** Percent-encodings that are not UTF-8: a stray byte and an encoded lone surrogate. */
const NOT_UTF8 = ['%FF', '%ED%A0%80'];

/**
 * Values the database cannot store, for a body argument that is not a per-record batch (those
 * are in the poison-record table): [label, value, the field the 400 must name].
 */
function unstorableValuesFor(arg: GraphQLArgument): Array<[string, unknown, string]> {
  if (isPerRecordBatch(arg)) return [];
  const listType = isNonNullType(arg.type) ? arg.type.ofType : arg.type;
  const named = getNamedType(arg.type);
  const wrap = (value: unknown) => (isListType(listType) ? [value] : value);
  const at = isListType(listType) ? `${arg.name}[0]` : arg.name;
  if (named === GraphQLString) {
    return [
      ['with NUL', wrap('a\u0000b'), at],
      ['with a lone surrogate', wrap('a\ud800b'), at],
    ];
  }
  if (named.name === 'JSONObject' || named.name === 'JSON') {
    return [
      ['with NUL deep inside', wrap({ nested: ['ok', { text: 'a\u0000b' }] }), `${at}.nested[1].text`],
      ['with NUL in a key', wrap({ nested: { 'k\u0000': 1 } }), `${at}.nested.k\u0000`],
      ['with a lone surrogate', wrap({ text: '\udc00' }), `${at}.text`],
    ];
  }
  if (isInputObjectType(named)) {
    const stringField = Object.values(named.getFields()).find((f) => getNamedType(f.type) === GraphQLString);
    if (!stringField) return [];
    const value = Object.fromEntries(
      Object.values(named.getFields()).map((f) => [f.name, getNamedType(f.type) === GraphQLString ? 'a\u0000b' : 1]),
    );
    return [['with NUL in a field', wrap(value), `${at}.${stringField.name}`]];
  }
  return [];
}

const CASES = restRoutes.flatMap(casesFor);

/** One valid record per batch argument; `id` makes it unique. */
const GOOD_RECORD: Record<string, (id: string) => Record<string, unknown>> = {
  products: (id) => ({ external_id: id, name: 'Cup', price: 1 }),
  partners: (id) => ({ external_id: id, name: 'Ada', type: 'C' }),
  sale_orders: (id) => ({ external_id: id, direction: 'inbound', lines: [{ sku: 'X', qty: 1 }] }),
  stocks: (id) => ({ supplier_external_id: 'SUP', product_external_id: id, quantity: 1 }),
  purchase_orders: (id) => ({ external_id: id, supplier_external_id: 'SUP', lines: [{ product_external_id: 'P', quantity: 1, price: 1 }] }),
};

type Poison = { name: string; make: (good: Record<string, unknown>) => Record<string, unknown>; field: string; needs?: string };

/** One unstorable thing per poison record; `field` is where it is, below `<arg>[1]`. */
const POISONS: Poison[] = [
  { name: 'NUL in a string', make: (g) => ({ ...g, note: 'a\u0000b' }), field: '.note' },
  { name: 'a lone high surrogate', make: (g) => ({ ...g, note: 'a\ud800' }), field: '.note' },
  { name: 'a lone low surrogate deep in an array', make: (g) => ({ ...g, extra: { list: [1, '\udc00x'] } }), field: '.extra.list[1]' },
  { name: 'NUL in an object key', make: (g) => ({ ...g, extra: { 'k\u0000': 1 } }), field: '.extra.k\u0000' },
  { name: 'NUL in the identifying field', make: (g) => ({ ...g, [identifying(g)]: `${String(g[identifying(g)])}\u0000` }), field: '' },
  { name: 'a number beyond double precision (1e400)', make: (g) => ({ ...g, big: '__1e400__' }), field: '.big' },
  { name: 'erp_id 2^31 (int4 column)', make: (g) => ({ ...g, erp_id: 2 ** 31 }), field: '.erp_id', needs: 'erp_id' },
  { name: 'erp_id -2^31 - 1', make: (g) => ({ ...g, erp_id: -(2 ** 31) - 1 }), field: '.erp_id', needs: 'erp_id' },
];

/** The field that names the record: external_id, or the product of a stock entry. */
const identifying = (g: Record<string, unknown>) => ('external_id' in g ? 'external_id' : 'product_external_id');

const BATCH_ROUTES = restRoutes.flatMap((route) =>
  argsOf(route)
    .filter(isPerRecordBatch)
    .map((arg) => ({ route, arg: arg.name })),
);

const POISON_CASES = BATCH_ROUTES.flatMap(({ route, arg }) => {
  const itemSchema = route.bodyLists?.[arg]?.items?.schema as { properties?: Record<string, unknown> } | undefined;
  return POISONS.filter((p) => !p.needs || Object.hasOwn(itemSchema?.properties ?? {}, p.needs)).map(
    (poison) => [`POST ${route.path}: ${poison.name}`, { route, arg, poison }] as const,
  );
});

describe.each(httpBackends)('hostile input on %s', (backend) => {
  const ctx = useApiFixture(backend);
  // Admin may call every route, so each case meets the route's input handling, not a role's 403.
  let admin: string;
  beforeAll(async () => {
    admin = (await createToken(ctx.db.prisma, `hostile-admin-${backend}`, 'admin')).token;
  });

  const fingerprint = () => fingerprintOf(ctx.db.prisma);

  beforeAll(async () => {
    await ctx.api.request('POST', '/api/v1/products', {
      body: { products: [{ external_id: 'H-1', price: 1, pricelists: [{ pricelist_external_id: 'X', pricelist_name: 'X', price: 1 }] }] },
    });
    await ctx.api.request('POST', '/api/v1/stocks', {
      body: { stocks: [{ supplier_external_id: 'X', product_external_id: 'X', quantity: 1 }] },
    });
    await ctx.api.request('POST', '/api/v1/partners', { body: { external_id: 'X' } });
    await ctx.api.request('POST', '/api/v1/failures', {
      body: { entity_type: 'product', external_id: 'H-1', source: 'erp', error_message: 'x' },
    });
  });

  it(`covers every route (${CASES.length} cases)`, () => {
    const covered = new Set(CASES.map((c) => c.route));
    for (const route of restRoutes) {
      const hasInput = argsOf(route).length > 0 || route.method === 'POST';
      if (hasInput) expect(covered).toContain(`${route.method} ${route.path}`);
    }
  });

  it.each(CASES.map((c) => [c.name, c] as const))('%s', async (_name, c) => {
    const before = await fingerprint();
    const headers: Record<string, string> = {};
    if (c.body !== undefined) headers['content-type'] = c.contentType ?? 'application/json';
    const response = await fetch(`${ctx.api.url}${c.path}`, {
      method: c.method,
      headers: { ...headers, authorization: `Bearer ${admin}` },
      body: typeof c.body === 'string' || c.body === undefined ? (c.body ?? null) : new Uint8Array(c.body),
    });
    const text = await response.text();
    expect({ status: response.status, text: text.slice(0, 300) }).toEqual({ status: c.status, text: expect.any(String) });
    const body = JSON.parse(text) as { error: { code: string; message: string; details?: Array<{ field: string }> } };
    expect(body.error.code).toBe(c.code);
    expect(body.error.message).toEqual(expect.any(String));
    if (c.field) expect(body.error.details?.map((d) => d.field)).toContain(c.field);
    expect(await fingerprint()).toBe(before);
  });

  it('has a valid record for every batch route', () => {
    for (const { arg } of BATCH_ROUTES) expect(Object.keys(GOOD_RECORD)).toContain(arg);
  });

  it.each(POISON_CASES)('%s: the good records are stored, the poison one is in errors', async (name, { route, arg, poison }) => {
    const id = `POISON-${POISON_CASES.findIndex(([n]) => n === name)}`;
    const good = GOOD_RECORD[arg]!;
    const records = [good(`${id}-A`), poison.make(good(`${id}-P`)), good(`${id}-B`)];
    const rawBody = JSON.stringify({ [arg]: records }).replace('"__1e400__"', '1e400');
    const res = await ctx.api.request('POST', fullPath(route), { rawBody, headers: { 'content-type': 'application/json' } });
    const field = poison.field === '' ? `${arg}[1].${identifying(records[0]!)}` : `${arg}[1]${poison.field}`;
    expect({ status: res.status, body: res.body }).toMatchObject({
      status: 200,
      body: { success: false, processed: 2, created: 2, errors: [{ index: 1, field, message: expect.any(String) }] },
    });
    // Stored as sent: the same two records again change nothing.
    const again = await ctx.api.request('POST', fullPath(route), { body: { [arg]: [records[0], records[2]] } });
    expect(again.body).toMatchObject({ success: true, processed: 2, created: 0, updated: 0 });
  });

  it('stores injection strings verbatim and keeps every table', async () => {
    const nasty = ["x'); DROP TABLE products; --", '{"$where": "1 == 1"}', 'Robert"); DELETE FROM partners; --', '\\u0000 \u202e'];
    const res = await ctx.api.request('POST', '/api/v1/products', {
      body: {
        products: nasty.map((text, i) => ({ external_id: `INJ-${i}-${text}`.slice(0, 255), name: text, [text.slice(0, 20)]: text })),
      },
    });
    expect(res.body).toMatchObject({ success: true, created: nasty.length });
    for (const [i, text] of nasty.entries()) {
      const stored = await ctx.db.prisma.product.findUniqueOrThrow({ where: { externalId: `INJ-${i}-${text}`.slice(0, 255) } });
      expect((stored.data as Record<string, unknown>).name).toBe(text);
    }
    expect(await ctx.db.prisma.partner.count()).toBeGreaterThan(0);
  });

  it('keeps GraphQL errors at /graphql in the GraphQL shape with the same codes', async () => {
    const malformed = await ctx.api.request('POST', '/graphql', { rawBody: '{"query": ', headers: { 'content-type': 'application/json' } });
    expect(malformed.status).toBe(400);
    const deep = await ctx.api.request('POST', '/graphql', {
      rawBody: `{"query":"{ __typename }","variables":{"x":${'['.repeat(10_000)}${']'.repeat(10_000)}}}`,
      headers: { 'content-type': 'application/json' },
    });
    expect(deep.status).toBe(400);
    expect(deep.body.errors[0].extensions.code).toBe('VALIDATION_FAILED');
  });
});
