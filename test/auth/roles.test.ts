import {
  getNamedType,
  isEnumType,
  isInputObjectType,
  isLeafType,
  isListType,
  isNonNullType,
  type GraphQLField,
  type GraphQLInputType,
  type GraphQLObjectType,
} from 'graphql';
import { ROLES, rolesOf, type Role } from '../../src/auth/roles';
import { createToken } from '../../src/auth/token.service';
import { grantOf } from '../../src/graphql/access';
import { restRoutes, schema } from '../../src/modules';
import { routeRoles } from '../../src/rest/route-roles';
import { fullPath } from '../../src/routing/route-table';
import { backends } from '../support/database';
import { useApiFixture, type JsonResponse } from '../support/http';
import { openSse } from '../support/sse';
import { waitFor } from '../support/wait-for';

/**
 * Least privilege (issue 31, ADR 0044), table-driven from the schema and the route table: every
 * root field names its grant, and every role is refused exactly the REST routes and GraphQL
 * fields its grant leaves out, with a 403 naming the role and what it may do.
 */

const ROOT_TYPES = [schema.getQueryType(), schema.getMutationType(), schema.getSubscriptionType()].filter(Boolean) as GraphQLObjectType[];
const REFUSAL = (role: Role, operation: string) => new RegExp(`^A token with role ${role} may not call ${operation}\\. Role ${role} may `);

/** The GraphQL literal of a value of `type` that parses (whatever the resolver then thinks of it). */
function literal(type: GraphQLInputType): string {
  if (isNonNullType(type)) return literal(type.ofType);
  if (isListType(type)) return '[]';
  if (isEnumType(type)) return type.getValues()[0]!.name;
  if (isInputObjectType(type)) {
    const required = Object.values(type.getFields()).filter((f) => isNonNullType(f.type));
    return `{${required.map((f) => `${f.name}: ${literal(f.type)}`).join(', ')}}`;
  }
  const scalars: Record<string, string> = {
    Int: '1',
    Float: '1',
    Boolean: 'false',
    DateTime: '"2026-01-01T00:00:00.000Z"',
    Date: '"2026-01-01"',
  };
  return scalars[type.name] ?? (type.name.startsWith('JSON') ? '{}' : '"x"');
}

/** The smallest document calling `field`: its required arguments, and __typename of an object answer. */
function operationOf(kind: 'query' | 'mutation', field: GraphQLField<unknown, unknown>): string {
  const args = field.args.filter((a) => isNonNullType(a.type)).map((a) => `${a.name}: ${literal(a.type)}`);
  const selection = isLeafType(getNamedType(field.type)) ? '' : ' { __typename }';
  return `${kind} { ${field.name}${args.length ? `(${args.join(', ')})` : ''}${selection} }`;
}

it('every root field names who may call it', () => {
  const unnamed = ROOT_TYPES.flatMap((type) =>
    Object.values(type.getFields())
      .filter((field) => grantOf(field) === undefined)
      .map((field) => `${type.name}.${field.name}`),
  );
  expect(unnamed).toEqual([]);
});

describe.each(backends)('roles on %s', (backend) => {
  const ctx = useApiFixture(backend);
  const tokens = {} as Record<Role, string>;
  beforeAll(async () => {
    for (const role of ROLES) tokens[role] = (await createToken(ctx.db.prisma, `role-${role}`, role)).token;
  });

  const secured = restRoutes.filter((route) => !route.public);
  it.each(secured.map((route) => [`${route.method} ${fullPath(route)}`, route] as const))(
    'REST %s: refused exactly to the roles its grant leaves out',
    async (_label, route) => {
      const allowed = routeRoles(schema, route)!;
      const path = fullPath(route).replace(/:(\w+)/g, (_m, name: string) => (name === 'id' ? '999999' : 'x'));
      for (const role of ROLES) {
        const res: JsonResponse = await ctx.api.request(route.method, path, {
          token: tokens[role],
          ...(route.method === 'GET' ? {} : { body: {} }),
        });
        const operation = route.field.split('.')[1]!;
        if (allowed.includes(role)) {
          expect({ role, message: res.body?.error?.message ?? '' }).not.toMatchObject({
            message: expect.stringMatching(REFUSAL(role, operation)),
          });
        } else {
          expect({ role, status: res.status, code: res.body?.error?.code }).toEqual({ role, status: 403, code: 'FORBIDDEN' });
          expect(res.body.error.message).toMatch(REFUSAL(role, operation));
        }
      }
    },
  );

  const fields = (['query', 'mutation'] as const).flatMap((kind) => {
    const type = kind === 'query' ? schema.getQueryType()! : schema.getMutationType()!;
    return Object.values(type.getFields()).map((field) => [`${type.name}.${field.name}`, kind, field] as const);
  });
  it.each(fields)('GraphQL %s: refused exactly to the roles its grant leaves out', async (_label, kind, field) => {
    const grant = grantOf(field)!;
    const document = operationOf(kind, field);
    for (const role of ROLES) {
      const res = await ctx.api.request('POST', '/graphql', { token: tokens[role], body: { query: document } });
      const refusals = ((res.body?.errors ?? []) as Array<{ message: string; extensions?: { code?: string } }>).filter((e) =>
        REFUSAL(role, field.name).test(e.message),
      );
      const refused = grant !== 'public' && !rolesOf(grant).includes(role);
      expect({ role, document, refused: refusals.length > 0 }).toEqual({ role, document, refused });
      if (refused) expect(refusals[0]!.extensions?.code).toBe('FORBIDDEN');
    }
  });

  it('a webshop token cannot push and stores nothing; an erp token cannot list or acknowledge', async () => {
    const push = await ctx.api.request('POST', '/api/v1/products', {
      token: tokens.webshop,
      body: { products: [{ external_id: 'R-SHOP', price: 1 }] },
    });
    expect(push.status).toBe(403);
    expect(push.body.error.message).toMatch(/role webshop may not call syncProducts\. Role webshop may list and acknowledge/);
    expect(await ctx.db.prisma.product.count({ where: { externalId: 'R-SHOP' } })).toBe(0);

    expect((await ctx.api.request('POST', '/api/v1/products', { token: tokens.erp, body: { external_id: 'R-ERP' } })).status).toBe(200);
    expect((await ctx.api.request('GET', '/api/v1/updated-products', { token: tokens.erp })).status).toBe(403);
    const id = (await ctx.db.prisma.product.findUniqueOrThrow({ where: { externalId: 'R-ERP' } })).id;
    expect((await ctx.api.request('DELETE', `/api/v1/updated-products/${id}?revision=1`, { token: tokens.erp })).status).toBe(403);
    expect((await ctx.db.prisma.product.findUniqueOrThrow({ where: { id } })).pending).toBe(true);
  });

  it("a report's source is the reporter's role: erp and webshop default to themselves and may not name the other side", async () => {
    const report = (source?: string) => ({
      entity_type: 'product',
      external_id: 'R-FAIL',
      error_message: 'broken',
      ...(source ? { source } : {}),
    });
    const asErp = await ctx.api.request('POST', '/api/v1/failures', { token: tokens.erp, body: report() });
    expect(asErp.status).toBe(201);
    expect((await ctx.db.prisma.syncFailure.findUniqueOrThrow({ where: { id: asErp.body.id } })).source).toBe('erp');
    const asShop = await ctx.api.request('POST', '/api/v1/failures', { token: tokens.webshop, body: report() });
    expect((await ctx.db.prisma.syncFailure.findUniqueOrThrow({ where: { id: asShop.body.id } })).source).toBe('webshop');

    const spoofed = await ctx.api.request('POST', '/api/v1/failures', { token: tokens.webshop, body: report('erp') });
    expect(spoofed.status).toBe(403);
    expect(spoofed.body.error.message).toMatch(/role webshop reports failures with source webshop, not erp/);
    const spoofedGraphql = await ctx.api.request('POST', '/graphql', {
      token: tokens.erp,
      body: { query: 'mutation { reportFailure(entity_type: product, external_id: "R", error_message: "x", source: webshop) { id } }' },
    });
    expect(spoofedGraphql.body.errors[0].extensions.code).toBe('FORBIDDEN');

    const unsaid = await ctx.api.request('POST', '/api/v1/failures', { token: tokens.integration, body: report() });
    expect(unsaid.status).toBe(400);
    expect(unsaid.body.error.details).toEqual([{ field: 'source', message: expect.stringMatching(/role integration/) }]);
    expect((await ctx.api.request('POST', '/api/v1/failures', { token: tokens.integration, body: report('webshop') })).status).toBe(201);
  });

  it("a viewer's reads are never listings: they widen no acknowledgement by id", async () => {
    await ctx.api.request('POST', '/api/v1/products', { token: tokens.erp, body: { external_id: 'R-VIEW', name: 'v1' } });
    const id = (await ctx.db.prisma.product.findUniqueOrThrow({ where: { externalId: 'R-VIEW' } })).id;
    const seen = await ctx.api.request('GET', '/api/v1/updated-products?limit=500', { token: tokens.viewer });
    expect(seen.body.payload.map((p: { id: number }) => p.id)).toContain(id);
    const viaGraphql = await ctx.api.request('POST', '/graphql', {
      token: tokens.viewer,
      body: { query: '{ updatedProducts(limit: 500) { payload { id } } }' },
    });
    expect(viaGraphql.body.data.updatedProducts.payload.map((p: { id: number }) => p.id)).toContain(id);
    expect((await ctx.db.prisma.product.findUniqueOrThrow({ where: { id } })).listedRevisions).toEqual({});

    // The webshop was never shown it: an ack by id covers nothing.
    const blind = await ctx.api.request('POST', '/api/v1/updated-products/batch-delete', { token: tokens.webshop, body: { ids: [id] } });
    expect(blind.body).toMatchObject({ acknowledged: 0, notListed: [id] });
    await ctx.api.request('GET', '/api/v1/updated-products?limit=500', { token: tokens.webshop });
    const acked = await ctx.api.request('POST', '/api/v1/updated-products/batch-delete', { token: tokens.webshop, body: { ids: [id] } });
    expect(acked.body).toMatchObject({ acknowledged: 1 });
    expect((await ctx.db.prisma.product.findUniqueOrThrow({ where: { id } })).pending).toBe(false);
  });

  it('token names are shown to admin only; a viewer may follow failures live but not operational events', async () => {
    await ctx.api.request('POST', '/api/v1/products', { token: tokens.erp, body: { external_id: 'R-HIST', name: 'h' } });
    const history = (token: string) =>
      ctx.api.request('POST', '/graphql', {
        token,
        body: { query: '{ history(entityType: "product", externalId: "R-HIST") { entries { tokenName } } }' },
      });
    expect((await history(tokens.viewer)).body.data.history.entries[0].tokenName).toBeNull();
    expect((await history(tokens.admin)).body.data.history.entries[0].tokenName).toBe('role-erp');

    /** Reads an SSE answer until `until` matches what arrived, then closes it; what arrived, as JSON. */
    const streamUntil = async (token: string, query: string, until: RegExp, meanwhile?: () => Promise<unknown>) => {
      const stream = await openSse(ctx.api.url, token, query);
      try {
        await meanwhile?.();
        await waitFor(() => until.test(JSON.stringify(stream.events)), 30_000, `${until} in the stream`);
        return JSON.stringify(stream.events);
      } finally {
        await stream.close();
      }
    };
    expect(await streamUntil(tokens.viewer, 'subscription { operationalEvents { event } }', /FORBIDDEN/)).toMatch(/"code":"FORBIDDEN"/);
    const live = await streamUntil(tokens.viewer, 'subscription { syncFailure { external_id } }', /R-LIVE/, () =>
      ctx.api.request('POST', '/api/v1/failures', {
        token: tokens.erp,
        body: { entity_type: 'product', external_id: 'R-LIVE', error_message: 'x' },
      }),
    );
    expect(live).toMatch(/"external_id":"R-LIVE"/);
  });
});
