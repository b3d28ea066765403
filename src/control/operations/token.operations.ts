import { z } from 'zod';
import { createToken, listTokens, revokeToken, tokenName } from '../../auth/token.service';
import { ROLES } from '../../auth/roles';
import { asJson, defineOperation } from '../operation';

export const createTokenOperation = defineOperation({
  name: 'token.create',
  args: z.object({ name: tokenName, role: z.enum(ROLES).default('integration'), channel: z.string().min(1).default('default') }),
  run: async ({ db }, { name, role, channel }) => asJson(await createToken(db.prisma, name, role, channel)),
});

export const listTokensOperation = defineOperation({
  name: 'token.list',
  args: z.object({}),
  run: async ({ db }) => asJson(await listTokens(db.prisma)),
});

export const revokeTokenOperation = defineOperation({
  name: 'token.revoke',
  args: z.object({ idOrName: z.string().min(1, 'an id or a name') }),
  run: async ({ db, announceRevocation }, { idOrName }) => {
    const summary = asJson(await revokeToken(db.prisma, idOrName));
    return { summary, warning: await announceRevocation() };
  },
});
