import { allow } from '../graphql/access';
import { builder } from '../graphql/builder';
import { ROLE_MAY, ROLES, type Role } from '../auth/roles';
import { createToken, listTokens, revokeToken, type TokenSummary } from '../auth/token.service';

const TokenRoleEnum = builder.enumType('TokenRole', {
  description: 'What a token may do (ADR 0044). Each operation of the API reference names the roles that may call it.',
  values: Object.fromEntries(ROLES.map((role) => [role, { description: `May ${ROLE_MAY[role]}.` }])) as Record<
    Role,
    { description: string }
  >,
});

const ApiToken = builder.objectRef<TokenSummary>('ApiToken').implement({
  description: 'An API token; its secret is shown once, at creation, and never stored.',
  fields: (t) => ({
    id: t.exposeInt('id'),
    name: t.exposeString('name'),
    role: t.field({ type: TokenRoleEnum, resolve: (tok) => tok.role }),
    channel: t.exposeString('channel', { description: 'The channel whose change feed it lists and acknowledges (ADR 0045).' }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    lastUsedAt: t.expose('lastUsedAt', { type: 'DateTime', nullable: true }),
    revokedAt: t.expose('revokedAt', { type: 'DateTime', nullable: true }),
  }),
});

const CreatedToken = builder.objectRef<{ token: string; summary: TokenSummary }>('CreatedApiToken').implement({
  fields: (t) => ({
    token: t.exposeString('token', { description: 'The bearer token. Shown only now.' }),
    apiToken: t.field({ type: ApiToken, resolve: (c) => c.summary }),
  }),
});

builder.queryField('apiTokens', (t) =>
  t.field({
    ...allow('admin'),
    type: [ApiToken],
    description: 'Admin only.',
    resolve: (_root, _args, ctx) => {
      return listTokens(ctx.prisma);
    },
  }),
);

builder.mutationFields((t) => ({
  createApiToken: t.field({
    ...allow('admin'),
    type: CreatedToken,
    description: 'Admin only. The token is in the answer and nowhere else.',
    args: {
      name: t.arg.string({ required: true }),
      role: t.arg({ type: TokenRoleEnum }),
      channel: t.arg.string({ description: 'webshop and viewer tokens only: the channel it reads (default: default).' }),
    },
    resolve: (_root, args, ctx) => {
      return createToken(ctx.prisma, args.name, args.role ?? 'integration', args.channel ?? undefined);
    },
  }),
  revokeApiToken: t.field({
    ...allow('admin'),
    type: ApiToken,
    description:
      'Admin only. Revokes by id or name; revoking twice is harmless. The token stops working at once on every replica sharing REDIS_URL ' +
      '(else within TOKEN_CACHE_TTL_MS), and its open subscriptions end: SSE with a last UNAUTHENTICATED error, graphql-ws with close code 4403.',
    args: { idOrName: t.arg.string({ required: true }) },
    resolve: async (_root, args, ctx) => {
      const revoked = await revokeToken(ctx.prisma, args.idOrName);
      await ctx.credentialsRevoked();
      return revoked;
    },
  }),
}));
