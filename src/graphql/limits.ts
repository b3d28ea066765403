import { costLimitPlugin } from '@escape.tech/graphql-armor-cost-limit';
import { maxAliasesPlugin } from '@escape.tech/graphql-armor-max-aliases';
import { maxDepthPlugin } from '@escape.tech/graphql-armor-max-depth';
import { maxTokensPlugin } from '@escape.tech/graphql-armor-max-tokens';
import type { AppConfig } from '../config';

/**
 * Query depth, cost, alias and token limits for /graphql (GraphQL Armor). Rejected operations
 * never execute; they get VALIDATION_FAILED like any invalid operation. Armor's cost does not
 * multiply by page sizes: what an operation may return is bounded by request-bounds.plugin.ts
 * (MAX_QUERY_NODES, ADR 0043), which covers the REST routes too.
 */
export function graphqlLimitPlugins(limits: AppConfig['graphqlLimits']) {
  return [
    maxTokensPlugin({ n: limits.maxTokens }),
    maxDepthPlugin({ n: limits.maxDepth, ignoreIntrospection: true, flattenFragments: true }),
    maxAliasesPlugin({ n: limits.maxAliases }),
    costLimitPlugin({ maxCost: limits.maxCost, ignoreIntrospection: true }),
  ];
}
