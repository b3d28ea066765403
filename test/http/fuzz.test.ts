import fc from 'fast-check';
import {
  getNamedType,
  GraphQLBoolean,
  GraphQLFloat,
  GraphQLID,
  GraphQLInt,
  GraphQLString,
  isEnumType,
  isInputObjectType,
  isLeafType,
  isListType,
  isNonNullType,
  type GraphQLArgument,
  type GraphQLField,
  type GraphQLInputType,
} from 'graphql';
import { createToken } from '../../src/auth/token.service';
import { restRoutes, schema } from '../../src/modules';
import { fullPath, type RestRoute } from '../../src/routing/route-table';
import { isPerRecordBatch } from '../../src/validation/graphql-arguments';
import { httpBackends } from '../support/database';
import { fingerprint } from '../support/fingerprint';
import { useApiFixture } from '../support/http';

/**
 * Arbitrary requests to every inbound REST route and GraphQL root field, generated from the route
 * table, the GraphQL argument types and the input schemas of the batch routes. Whatever arrives,
 * the service answers below 500, keeps answering, and a wholly rejected request changes nothing.
 */
const SEED = 20261123;
const REST_RUNS = 20;
const GRAPHQL_RUNS = 25;

const MB = 'x'.repeat(1024 * 1024);
const key = fc.oneof(
  fc.constantFrom('a', 'name', 'k\u0000', '\ud800', '\udfff', '', '__proto__', 'constructor'),
  fc.string({ unit: 'binary', maxLength: 8 }),
);
const hostileString = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom('a\u0000b', '\u0000', 'k\u0000\ud800') },
  { weight: 3, arbitrary: fc.constantFrom('\ud800', 'x\udc00', '\udbff\udfff') },
  { weight: 3, arbitrary: fc.constantFrom('', ' ', "'; DROP TABLE products; --", 'SKU-1', 'B') },
  { weight: 4, arbitrary: fc.string({ unit: 'binary', maxLength: 12 }) },
  { weight: 1, arbitrary: fc.constant(MB) },
);
const hostileNumber = fc.oneof(
  fc.constantFrom(1e308, -1e308, 2 ** 31, -(2 ** 31) - 1, 2 ** 31 - 1, 2 ** 53, -0, 1e-320, 5e-324, 0, 1, -1, 0.5),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.integer(),
);
const hostileDate = fc.oneof(
  fc.constantFrom(
    '2026-11-23',
    '0000-01-01',
    '9999-12-31',
    '2026-02-30',
    '2026-11-23T10:00:00Z',
    '0000-01-01T00:00:00Z',
    '9999-12-31T23:59:59.999Z',
  ),
  hostileString,
);
const hostileJson: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    hostileString,
    hostileNumber,
    fc.boolean(),
    fc.constant(null),
    fc.array(tie('value'), { maxLength: 3 }),
    fc.dictionary(key, tie('value'), { maxKeys: 3 }),
  ),
})).value;

type JsonSchema = {
  type?: string;
  format?: string;
  enum?: unknown[];
  nullable?: boolean;
  anyOf?: JsonSchema[];
  items?: JsonSchema;
  properties?: Record<string, JsonSchema>;
  required?: string[];
};

/** Mostly values of the documented shape with hostile contents, sometimes anything at all. */
function fromJsonSchema(s: JsonSchema): fc.Arbitrary<unknown> {
  return fc.oneof({ weight: 5, arbitrary: shapedBy(s) }, { weight: 1, arbitrary: hostileJson });
}

function shapedBy(s: JsonSchema): fc.Arbitrary<unknown> {
  const base = ((): fc.Arbitrary<unknown> => {
    if (s.enum) return fc.oneof(fc.constantFrom(...s.enum), hostileString);
    if (s.anyOf) return fc.oneof(...s.anyOf.map(fromJsonSchema));
    if (s.type === 'string') return s.format?.startsWith('date') ? hostileDate : hostileString;
    if (s.type === 'number' || s.type === 'integer') return hostileNumber;
    if (s.type === 'boolean') return fc.boolean();
    if (s.type === 'array') return fc.array(fromJsonSchema(s.items ?? {}), { maxLength: 3 });
    if (s.type === 'object') {
      const props = fc.record(Object.fromEntries(Object.entries(s.properties ?? {}).map(([k, v]) => [k, fromJsonSchema(v)])), {
        requiredKeys: s.required ?? [],
      });
      return fc.tuple(fc.dictionary(key, hostileJson, { maxKeys: 2 }), props).map(([extra, known]) => ({ ...extra, ...known }));
    }
    return hostileJson;
  })();
  return s.nullable ? fc.oneof(base, fc.constant(null)) : base;
}

/** A value for a GraphQL input type, as JSON (GraphQL variables or a REST body). */
function forInputType(type: GraphQLInputType): fc.Arbitrary<unknown> {
  const inner = isNonNullType(type) ? type.ofType : type;
  const typed = ((): fc.Arbitrary<unknown> => {
    if (isListType(inner)) return fc.array(forInputType(inner.ofType), { maxLength: 3 });
    if (isEnumType(inner)) return fc.constantFrom(...inner.getValues().map((v) => v.name));
    if (isInputObjectType(inner)) {
      return fc.record(Object.fromEntries(Object.values(inner.getFields()).map((f) => [f.name, forInputType(f.type)])), {
        requiredKeys: [],
      });
    }
    if (inner === GraphQLInt || inner === GraphQLFloat) return hostileNumber;
    if (inner === GraphQLBoolean) return fc.boolean();
    if (inner === GraphQLString || inner === GraphQLID) return hostileString;
    if (inner.name === 'DateTime' || inner.name === 'Date') return hostileDate;
    if (inner.name === 'JSONObject') return fc.dictionary(key, hostileJson, { maxKeys: 4 });
    return hostileJson;
  })();
  return fc.oneof({ weight: 5, arbitrary: typed }, { weight: 1, arbitrary: hostileJson });
}

/** Text for a path or query parameter: numbers as written, strings of any code units. */
function paramText(arg: GraphQLArgument): fc.Arbitrary<string> {
  const named = getNamedType(arg.type);
  const typed: fc.Arbitrary<string> =
    named === GraphQLInt
      ? fc.oneof(fc.integer().map(String), fc.constantFrom('2147483648', '-2147483649', '-0', '1e308', '1e-320', '0', '-1', '1.5'))
      : isEnumType(named)
        ? fc.constantFrom(...named.getValues().map((v) => v.name))
        : named.name === 'DateTime'
          ? hostileDate
          : fc.constant('X');
  return fc.oneof(
    typed,
    hostileString.filter((s) => s.length < 4096),
  );
}

/**
 * Percent-encoding of any JavaScript string, lone surrogates included (encoded the way WTF-8
 * writes them, which is not UTF-8: the server must refuse them, not crash on them).
 */
function percentEncode(text: string): string {
  let out = '';
  for (const char of text) {
    const unit = char.charCodeAt(0);
    if (char.length === 1 && unit >= 0xd800 && unit <= 0xdfff) {
      out += [0xe0 | (unit >> 12), 0x80 | ((unit >> 6) & 0x3f), 0x80 | (unit & 0x3f)]
        .map((b) => `%${b.toString(16).toUpperCase()}`)
        .join('');
    } else out += encodeURIComponent(char);
  }
  return out;
}

const fieldOf = (route: RestRoute): GraphQLField<unknown, unknown> => {
  const [root, name] = route.field.split('.') as ['Query' | 'Mutation', string];
  return (root === 'Query' ? schema.getQueryType() : schema.getMutationType())!.getFields()[name]!;
};
const pathParams = (route: RestRoute) => [...route.path.matchAll(/:(\w+)/g)].map((m) => m[1]!);

type Request = { method: string; path: string; body?: string };

function requestFor(route: RestRoute): fc.Arbitrary<Request> {
  const args = fieldOf(route).args;
  const inPath = new Set(pathParams(route));
  const inBody = (a: GraphQLArgument) => route.method === 'POST' && !inPath.has(a.name) && !route.queryArgs?.includes(a.name);
  const path = fc.record(Object.fromEntries(args.filter((a) => inPath.has(a.name)).map((a) => [a.name, paramText(a)])));
  const query = fc.record(Object.fromEntries(args.filter((a) => !inPath.has(a.name) && !inBody(a)).map((a) => [a.name, paramText(a)])), {
    requiredKeys: [],
  });
  const body = fc.record(
    Object.fromEntries(
      args.filter(inBody).map((a) => {
        const items = route.bodyLists?.[a.name]?.items?.schema as JsonSchema | undefined;
        const value = isPerRecordBatch(a) && items ? fc.array(fromJsonSchema(items), { maxLength: 4 }) : forInputType(a.type);
        return [a.name, value];
      }),
    ),
    { requiredKeys: [] },
  );
  return fc.tuple(path, query, body).map(([p, q, b]) => {
    const pathname = fullPath(route).replace(/:(\w+)/g, (_m, name: string) => percentEncode(p[name] as string));
    const search = Object.entries(q)
      .map(([k, v]) => `${k}=${percentEncode(v as string)}`)
      .join('&');
    return {
      method: route.method,
      path: `${pathname}${search ? `?${search}` : ''}`,
      ...(route.method === 'POST' ? { body: JSON.stringify(b) } : {}),
    };
  });
}

const REST_ROUTES = restRoutes
  .filter((r) => fieldOf(r).args.length > 0 || r.method === 'POST')
  .map((r) => [`${r.method} ${r.path}`, r] as const);

/** Root fields with arguments; revoking tokens by id would only lock this test out. */
const GRAPHQL_FIELDS = (['Query', 'Mutation'] as const).flatMap((root) =>
  Object.values((root === 'Query' ? schema.getQueryType() : schema.getMutationType())!.getFields())
    .filter((f) => f.args.length > 0 && f.name !== 'revokeApiToken')
    .map((f) => [`${root}.${f.name}`, root, f] as const),
);

describe.each(httpBackends)('fuzzed input on %s', (backend) => {
  const ctx = useApiFixture(backend);

  async function send(request: Request, token: string): Promise<{ status: number; text: string }> {
    const response = await fetch(`${ctx.api.url}${request.path}`, {
      method: request.method,
      headers: { authorization: `Bearer ${token}`, ...(request.body !== undefined ? { 'content-type': 'application/json' } : {}) },
      body: request.body ?? null,
    });
    return { status: response.status, text: await response.text() };
  }

  it.each(REST_ROUTES)('%s: no 5xx, rejected requests change nothing', async (_name, route) => {
    await fc.assert(
      fc.asyncProperty(requestFor(route), async (request) => {
        const before = await fingerprint(ctx.db.prisma);
        const { status, text } = await send(request, ctx.api.token);
        if (status >= 500) throw new Error(`${status} for ${request.method} ${request.path.slice(0, 200)}: ${text.slice(0, 500)}`);
        // Wholly rejected: an error answer, or a batch none of whose records was accepted.
        const acceptedNone = status === 200 && (JSON.parse(text) as { processed?: unknown }).processed === 0;
        if (status >= 400 || acceptedNone) expect(await fingerprint(ctx.db.prisma)).toBe(before);
      }),
      { seed: SEED, numRuns: REST_RUNS },
    );
    expect((await send({ method: 'GET', path: '/health' }, ctx.api.token)).status).toBe(200);
  });

  it.each(GRAPHQL_FIELDS)('GraphQL %s: no internal error', async (_name, root, field) => {
    // An admin token reaches the admin-only resolvers too.
    const { token } = await createToken(ctx.db.prisma, `fuzz-${root}-${field.name}`, 'admin');
    const variables = fc.record(Object.fromEntries(field.args.map((a) => [a.name, forInputType(a.type)])), {
      requiredKeys: field.args.filter((a) => isNonNullType(a.type)).map((a) => a.name),
    });
    const selection = isLeafType(getNamedType(field.type)) ? '' : '{ __typename }';
    const query = `${root === 'Query' ? 'query' : 'mutation'} Fuzz(${field.args.map((a) => `$${a.name}: ${a.type.toString()}`).join(', ')}) {
      ${field.name}(${field.args.map((a) => `${a.name}: $${a.name}`).join(', ')}) ${selection}
    }`;
    await fc.assert(
      fc.asyncProperty(variables, async (values) => {
        const { status, text } = await send(
          { method: 'POST', path: '/graphql', body: JSON.stringify({ query, variables: values }) },
          token,
        );
        if (status >= 500 || text.includes('INTERNAL_SERVER_ERROR')) throw new Error(`${status}: ${text.slice(0, 500)}`);
      }),
      { seed: SEED, numRuns: GRAPHQL_RUNS },
    );
    expect((await send({ method: 'GET', path: '/health' }, token)).status).toBe(200);
  });
});
