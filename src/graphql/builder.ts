import SchemaBuilder from '@pothos/core';
import PrismaPlugin from '@pothos/plugin-prisma';
import { DateResolver, DateTimeResolver, JSONObjectResolver, JSONResolver } from 'graphql-scalars';
import type PrismaTypes from '../generated/pothos-types';
import { getDatamodel } from '../generated/pothos-types';
import type { RequestContext } from './context';

export const builder = new SchemaBuilder<{
  PrismaTypes: PrismaTypes;
  Context: RequestContext;
  DefaultFieldNullability: false;
  DefaultInputFieldRequiredness: false;
  Scalars: {
    Date: { Input: Date; Output: Date | string };
    DateTime: { Input: Date; Output: Date | string };
    JSON: { Input: unknown; Output: unknown };
    JSONObject: { Input: Record<string, unknown>; Output: Record<string, unknown> };
  };
}>({
  plugins: [PrismaPlugin],
  defaultFieldNullability: false,
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

builder.queryType({});
builder.mutationType({});
