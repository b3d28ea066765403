import { initGraphQLTada } from 'gql.tada';
import type { introspection } from './graphql-env.d.ts';

/**
 * The console's `graphql` tag: every document's result and variables are typed from the committed
 * schema.graphql at compile time (gql.tada). `graphql-env.d.ts` is generated from schema.graphql by
 * `npm run schema:print`; a test fails when it is stale. A field the schema lacks fails `npm run typecheck`.
 */
export const graphql = initGraphQLTada<{
  introspection: introspection;
  scalars: {
    Date: string;
    DateTime: string;
    JSON: unknown;
    JSONObject: Record<string, unknown>;
  };
  // Fragments spread their fields into the result: the console shares field lists, not components' data needs.
  disableMasking: true;
}>();

export type { ResultOf, VariablesOf } from 'gql.tada';

/** The values of a schema enum, e.g. `EnumOf<'QueueStatus'>` is `'pending' | 'processing' | …`. */
export type EnumOf<Name extends string> = ReturnType<typeof graphql.scalar<Name>>;
