import { allow, PUBLIC_ACCESS } from '../graphql/access';
import { builder } from '../graphql/builder';
import {
  approveAccount,
  confirmPasswordReset,
  listAccounts,
  login,
  logout,
  register,
  requestPasswordReset,
  type AccountDeps,
  type AccountView,
} from './account.service';

declare module '../graphql/context' {
  interface DomainContext {
    /** What sign-in, registration and password resets need (the app's mailer, limiters, settings). */
    accounts: AccountDeps;
  }
}

/** The mutations anyone may call without a token. */
export const PUBLIC_ACCOUNT_FIELDS: ReadonlySet<string> = new Set(['login', 'register', 'requestPasswordReset', 'confirmPasswordReset']);

const AdminAccount = builder.objectRef<AccountView>('AdminAccount').implement({
  fields: (t) => ({
    id: t.exposeInt('id'),
    email: t.exposeString('email'),
    status: t.exposeString('status', { description: 'active, or pending until approved.' }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    approvedAt: t.expose('approvedAt', { type: 'DateTime', nullable: true }),
    approvedBy: t.exposeString('approvedBy', { nullable: true }),
    lastLoginAt: t.expose('lastLoginAt', { type: 'DateTime', nullable: true }),
  }),
});

const Session = builder.objectRef<{ token: string; expiresAt: Date; email: string; role: 'admin' }>('AdminSessionToken').implement({
  description: 'A bearer token with role admin, valid until expiresAt.',
  fields: (t) => ({
    token: t.exposeString('token'),
    expiresAt: t.expose('expiresAt', { type: 'DateTime' }),
    email: t.exposeString('email'),
    role: t.exposeString('role'),
  }),
});

const Registration = builder.objectRef<{ email: string; status: string }>('Registration').implement({
  fields: (t) => ({ email: t.exposeString('email'), status: t.exposeString('status', { description: 'active, or pending approval.' }) }),
});
const Accepted = builder
  .objectRef<{ accepted: boolean }>('Accepted')
  .implement({ fields: (t) => ({ accepted: t.exposeBoolean('accepted') }) });
const Success = builder.objectRef<{ success: boolean }>('Success').implement({ fields: (t) => ({ success: t.exposeBoolean('success') }) });

builder.mutationFields((t) => ({
  login: t.field({
    ...PUBLIC_ACCESS,
    type: Session,
    description:
      'Signs in an admin account (5 per minute per IP and per account). A failure says nothing about whether the account exists.',
    args: { email: t.arg.string({ required: true }), password: t.arg.string({ required: true }) },
    resolve: (_root, args, ctx) => login(ctx.accounts, args, ctx.clientIp),
  }),
  register: t.field({
    ...PUBLIC_ACCESS,
    type: Registration,
    description:
      'Registers an admin account (5 per hour per IP) when REGISTRATION is open or approval; with approval it waits for an admin.',
    args: { email: t.arg.string({ required: true }), password: t.arg.string({ required: true, description: '12 characters or more.' }) },
    resolve: (_root, args, ctx) => register(ctx.accounts, args, ctx.clientIp),
  }),
  requestPasswordReset: t.field({
    ...PUBLIC_ACCESS,
    type: Accepted,
    description:
      'Mails a single-use reset token valid for one hour (3 per hour per IP and per account). Same answer whether the account exists or not.',
    args: { email: t.arg.string({ required: true }) },
    resolve: (_root, args, ctx) => requestPasswordReset(ctx.accounts, args, ctx.clientIp),
  }),
  confirmPasswordReset: t.field({
    ...PUBLIC_ACCESS,
    type: Success,
    description: 'Sets a new password with a reset token; ends the sessions opened with the old one.',
    args: { token: t.arg.string({ required: true }), password: t.arg.string({ required: true }) },
    resolve: async (_root, args, ctx) => {
      const done = await confirmPasswordReset(ctx.accounts, args, ctx.clientIp);
      await ctx.credentialsRevoked();
      return done;
    },
  }),
  logout: t.field({
    ...allow('admin'),
    type: Success,
    description:
      'Ends the calling admin session at once, its open subscriptions (SSE and graphql-ws) included (FORBIDDEN for an API token).',
    resolve: async (_root, _args, ctx) => {
      const done = await logout(ctx.prisma, ctx.auth);
      await ctx.credentialsRevoked();
      return done;
    },
  }),
  approveAccount: t.field({
    ...allow('admin'),
    type: AdminAccount,
    description: 'Admin only. Activates a pending registration.',
    args: { id: t.arg.int({ required: true }) },
    resolve: (_root, args, ctx) => {
      return approveAccount(ctx.prisma, args.id, ctx.auth!.name);
    },
  }),
}));

builder.queryField('adminAccounts', (t) =>
  t.field({
    ...allow('admin'),
    type: [AdminAccount],
    description: 'Admin only.',
    args: { status: t.arg.string({ description: 'active or pending' }) },
    resolve: (_root, args, ctx) => {
      return listAccounts(ctx.prisma, args.status);
    },
  }),
);
