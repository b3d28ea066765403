import { createHash, randomBytes } from 'node:crypto';
import type Redis from 'ioredis';
import { RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import { createLimiter } from '../rate-limits/limiters';
import { z } from 'zod';
import type { AdminAccount, PrismaClient } from '../generated/prisma/client';
import { AppError, notFound } from '../errors/app-error';
import { parseInput } from '../validation/zod-details';
import type { AuthInfo } from '../auth/token.service';
import type { Mailer } from './mailer';
import { hashPassword, verifyAgainstNothing, verifyPassword } from './password';

import type { RegistrationMode } from './registration';

const SESSION_PREFIX = 'sgs_';
const RESET_TTL_MS = 3_600_000;

const email = z
  .email({ message: 'Must be an email address' })
  .max(254)
  .transform((e) => e.toLowerCase());
const password = z.string().min(12, 'At least 12 characters').max(256, 'At most 256 characters');
/** An email and a password (also validated by the CLI before it opens the store). */
export const credentials = z.object({ email, password });

/** SPEC 8: login 5 per minute, registration 5 per hour, password reset 3 per hour. */
export function createAccountLimiters(redis?: Redis, keyPrefix = 'sgw-acct') {
  const make = (name: string, points: number, durationSeconds: number) =>
    createLimiter({ points, durationSeconds, keyPrefix: `${keyPrefix}-${name}` }, redis);
  return {
    loginByIp: make('login-ip', 5, 60),
    loginByAccount: make('login-account', 5, 60),
    registerByIp: make('register-ip', 5, 3600),
    resetByIp: make('reset-ip', 3, 3600),
    resetByAccount: make('reset-account', 3, 3600),
    /** Confirmations count apart from requests, so that one reset does not use up two thirds of the budget. */
    confirmByIp: make('reset-confirm-ip', 3, 3600),
  };
}
export type AccountLimiters = ReturnType<typeof createAccountLimiters>;

export type AccountDeps = {
  prisma: PrismaClient;
  mailer: Mailer;
  limiters: AccountLimiters;
  registration: RegistrationMode;
  sessionTtlMs: number;
};

export type AccountView = Pick<AdminAccount, 'id' | 'email' | 'status' | 'createdAt' | 'approvedAt' | 'approvedBy' | 'lastLoginAt'>;
const view = ({ passwordHash: _hash, ...rest }: AdminAccount): AccountView => rest;
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

async function limit(limiter: RateLimiterAbstract, key: string): Promise<void> {
  try {
    await limiter.consume(key);
  } catch (rejection) {
    if (!(rejection instanceof RateLimiterRes)) throw rejection;
    const retryAfter = Math.max(1, Math.ceil(rejection.msBeforeNext / 1000));
    const error = new AppError('RATE_LIMITED', `Too many attempts; retry in ${retryAfter} s`);
    error.extensions.retryAfter = retryAfter;
    throw error;
  }
}

/** The first admin, from the CLI; also how operators add more without registration. */
export async function createAdminAccount(prisma: PrismaClient, input: { email: string; password: string }): Promise<AccountView> {
  const c = parseInput(credentials, input);
  if (await prisma.adminAccount.findUnique({ where: { email: c.email } })) {
    throw new AppError('CONFLICT', `An account for ${c.email} already exists`);
  }
  return view(await prisma.adminAccount.create({ data: { email: c.email, passwordHash: await hashPassword(c.password) } }));
}

/** A failed login says nothing about whether the account exists. */
export async function login(deps: AccountDeps, input: { email: string; password: string }, ip: string) {
  await limit(deps.limiters.loginByIp, ip);
  const c = parseInput(z.object({ email, password: z.string().max(256) }), input);
  await limit(deps.limiters.loginByAccount, c.email);
  const account = await deps.prisma.adminAccount.findUnique({ where: { email: c.email } });
  const ok = account ? await verifyPassword(c.password, account.passwordHash) : await verifyAgainstNothing(c.password);
  if (!account || !ok || account.status !== 'active') {
    throw new AppError('UNAUTHENTICATED', 'Invalid email or password, or the account is not approved yet');
  }
  const token = SESSION_PREFIX + randomBytes(32).toString('base64url');
  const expiresAt = new Date(Date.now() + deps.sessionTtlMs);
  await deps.prisma.$transaction([
    deps.prisma.adminSession.create({ data: { tokenHash: sha256(token), accountId: account.id, expiresAt } }),
    deps.prisma.adminAccount.update({ where: { id: account.id }, data: { lastLoginAt: new Date() } }),
  ]);
  return { token, expiresAt, email: account.email, role: 'admin' as const };
}

export async function verifySession(prisma: PrismaClient, token: string): Promise<AuthInfo | null> {
  if (!token.startsWith(SESSION_PREFIX) || token.length > 200) return null;
  const session = await prisma.adminSession.findUnique({ where: { tokenHash: sha256(token) }, include: { account: true } });
  if (!session || session.revokedAt || session.expiresAt.getTime() <= Date.now() || session.account.status !== 'active') return null;
  return {
    key: `session:${session.tokenHash.slice(0, 32)}`,
    name: session.account.email,
    role: 'admin',
    channelId: null,
    sessionTokenHash: session.tokenHash,
  };
}

/** Ends the caller's own session; an API token cannot sign out. */
export async function logout(prisma: PrismaClient, auth: AuthInfo | null): Promise<{ success: true }> {
  if (!auth?.sessionTokenHash) throw new AppError('FORBIDDEN', 'Only an admin session can sign out; revoke API tokens instead');
  await prisma.adminSession.updateMany({ where: { tokenHash: auth.sessionTokenHash, revokedAt: null }, data: { revokedAt: new Date() } });
  return { success: true };
}

export async function register(deps: AccountDeps, input: { email: string; password: string }, ip: string) {
  await limit(deps.limiters.registerByIp, ip);
  if (deps.registration === 'closed') {
    throw new AppError('FORBIDDEN', 'Registration is closed; an admin can create accounts with `sync-gateway admin create`');
  }
  const c = parseInput(credentials, input);
  const existing = await deps.prisma.adminAccount.findUnique({ where: { email: c.email } });
  if (existing) throw new AppError('CONFLICT', `An account for ${c.email} already exists`);
  const status = deps.registration === 'open' ? 'active' : 'pending';
  const account = await deps.prisma.adminAccount.create({
    data: { email: c.email, passwordHash: await hashPassword(c.password), status },
  });
  return { email: account.email, status: account.status };
}

/** Always the same answer, whether or not the account exists. */
export async function requestPasswordReset(deps: AccountDeps, input: { email: string }, ip: string) {
  await limit(deps.limiters.resetByIp, ip);
  const { email: address } = parseInput(z.object({ email }), input);
  await limit(deps.limiters.resetByAccount, address);
  const account = await deps.prisma.adminAccount.findUnique({ where: { email: address } });
  if (account) {
    const token = randomBytes(32).toString('base64url');
    await deps.prisma.passwordReset.create({
      data: { tokenHash: sha256(token), accountId: account.id, expiresAt: new Date(Date.now() + RESET_TTL_MS) },
    });
    await deps.mailer.sendPasswordReset(account.email, token);
  }
  return { accepted: true };
}

export async function confirmPasswordReset(deps: AccountDeps, input: { token: string; password: string }, ip: string) {
  await limit(deps.limiters.confirmByIp, ip);
  const c = parseInput(z.object({ token: z.string().min(1).max(200), password }), input);
  const newHash = await hashPassword(c.password);
  await deps.prisma.$transaction(async (tx) => {
    // Single use: the token is consumed by the same statement that checks it.
    const { count } = await tx.passwordReset.updateMany({
      where: { tokenHash: sha256(c.token), usedAt: null, expiresAt: { gt: new Date() } },
      data: { usedAt: new Date() },
    });
    if (count === 0)
      throw new AppError('VALIDATION_FAILED', 'The reset token is invalid, used or expired', [
        { field: 'token', message: 'Invalid, used or expired' },
      ]);
    const reset = await tx.passwordReset.findUniqueOrThrow({ where: { tokenHash: sha256(c.token) } });
    await tx.adminAccount.update({ where: { id: reset.accountId }, data: { passwordHash: newHash } });
    // A new password ends the sessions opened with the old one.
    await tx.adminSession.updateMany({ where: { accountId: reset.accountId, revokedAt: null }, data: { revokedAt: new Date() } });
  });
  return { success: true };
}

export async function listAccounts(prisma: PrismaClient, status?: string | null): Promise<AccountView[]> {
  return (await prisma.adminAccount.findMany({ where: status ? { status } : {}, orderBy: { id: 'asc' } })).map(view);
}

export async function approveAccount(prisma: PrismaClient, id: number, by: string): Promise<AccountView> {
  const account = await prisma.adminAccount.findUnique({ where: { id } });
  if (!account) throw notFound('Account', id);
  if (account.status === 'active') return view(account);
  return view(await prisma.adminAccount.update({ where: { id }, data: { status: 'active', approvedAt: new Date(), approvedBy: by } }));
}
