import { randomBytes } from 'node:crypto';
import { createAdminAccount, credentials } from '../../accounts/account.service';
import { asJson, defineOperation } from '../operation';

export const createAdminOperation = defineOperation({
  name: 'admin.create',
  // Without a password one is generated and answered once.
  args: credentials.partial({ password: true }),
  run: async ({ db }, { email, password }) => {
    const generatedPassword = password === undefined ? randomBytes(18).toString('base64url') : undefined;
    const account = await createAdminAccount(db.prisma, { email, password: password ?? generatedPassword! });
    return { account: asJson(account), generatedPassword };
  },
});
