import SchemaBuilder from '@pothos/core';
import PrismaPlugin from '@pothos/plugin-prisma';
import ScopeAuthPlugin from '@pothos/plugin-scope-auth';
import { DateResolver, DateTimeResolver, JSONObjectResolver, JSONResolver } from 'graphql-scalars';
import type PrismaTypes from '../generated/pothos-types';
import { getDatamodel } from '../generated/pothos-types';
import { forbidden, ROLES, type Role } from '../auth/roles';
import type { RequestContext } from './context';

export const builder = new SchemaBuilder<{
  PrismaTypes: PrismaTypes;
  Context: RequestContext;
  /** One scope per role, and `public` for the fields that need no token (signing in). */
  AuthScopes: Record<Role | 'public', boolean>;
  DefaultFieldNullability: false;
  DefaultInputFieldRequiredness: false;
  Scalars: {
    Date: { Input: Date; Output: Date | string };
    DateTime: { Input: Date; Output: Date | string };
    JSON: { Input: unknown; Output: unknown };
    JSONObject: { Input: Record<string, unknown>; Output: Record<string, unknown> };
  };
}>({
  // Scope auth first, so that no other plugin's wrapper runs for a caller the field refuses.
  plugins: [ScopeAuthPlugin, PrismaPlugin],
  defaultFieldNullability: false,
  scopeAuth: {
    // Checked when a subscription starts, not at each event: a refused stream never opens.
    authorizeOnSubscribe: true,
    authScopes: (ctx) =>
      ({ public: true, ...Object.fromEntries(ROLES.map((role) => [role, ctx.auth?.role === role])) }) as Record<Role | 'public', boolean>,
    unauthorizedError: (_parent, ctx, info) => forbidden(ctx.auth?.role, info.fieldName),
  },
  prisma: {
    // The client is per deployment (its own pool), so the schema reads it from the context.
    client: (ctx) => ctx.prisma,
    dmmf: getDatamodel(),
    exposeDescriptions: false,
    filterConnectionTotalCount: true,
  },
});

builder.addScalarType('DateTime', DateTimeResolver, {
  description: 'An ISO 8601 timestamp with time zone, e.g. 2026-11-22T08:30:00.000Z.',
});
builder.addScalarType('Date', DateResolver, { description: 'A calendar date, YYYY-MM-DD.' });
builder.addScalarType('JSON', JSONResolver, {});
builder.addScalarType('JSONObject', JSONObjectResolver, {});

// Fail closed: a root field is admin's alone unless it names a grant (src/graphql/access.ts).
builder.queryType({ authScopes: { admin: true } });
builder.mutationType({ authScopes: { admin: true } });
builder.subscriptionType({ authScopes: { admin: true } });
