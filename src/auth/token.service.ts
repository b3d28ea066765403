import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';
import type { PrismaClient, TokenRole } from '../generated/prisma/client';
import { AppError } from '../errors/app-error';
import type { AuthInfo } from './auth-info';
import type { TokenCache } from './token-cache';

export type { AuthInfo } from './auth-info';

export type TokenSummary = {
  id: number;
  name: string;
  role: TokenRole;
  /** The channel whose feed it lists and acknowledges (ADR 0045). */
  channel: string;
  createdAt: Date;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
};

/** The channel every install has: the records' own ledger (ADR 0045). */
export const DEFAULT_CHANNEL = 'default';

/** Roles whose token may be bound to a channel other than default: the ones that read a feed alone. */
const CHANNEL_ROLES: readonly TokenRole[] = ['webshop', 'viewer'];

const withChannel = { channel: { select: { name: true } } } as const;

/** What a token name may be (also validated by the CLI before it opens the store). */
export const tokenName = z.string().trim().min(1, '1 to 100 characters').max(100, '1 to 100 characters');

const TOKEN_PREFIX = 'sgw_';
const TOKEN_BYTES = 32;

function hashToken(token: string): Buffer {
  return createHash('sha256').update(token, 'utf8').digest();
}

/** Returns the token in clear exactly once; only its SHA-256 is stored. */
export async function createToken(
  prisma: PrismaClient,
  name: string,
  role: TokenRole = 'integration',
  channel: string = DEFAULT_CHANNEL,
): Promise<{ token: string; summary: TokenSummary }> {
  const trimmed = name.trim();
  if (!tokenName.safeParse(trimmed).success) {
    throw new AppError('VALIDATION_FAILED', 'A token name is 1 to 100 characters', [{ field: 'name', message: '1 to 100 characters' }]);
  }
  const channelId = await channelIdFor(prisma, role, channel);
  if (await prisma.apiToken.findUnique({ where: { name: trimmed } })) {
    throw new AppError('CONFLICT', `A token named ${JSON.stringify(trimmed)} already exists`);
  }
  const token = TOKEN_PREFIX + randomBytes(TOKEN_BYTES).toString('base64url');
  const row = await prisma.apiToken.create({
    data: { name: trimmed, role, channelId, tokenHash: hashToken(token).toString('hex') },
    include: withChannel,
  });
  return { token, summary: summarize(row) };
}

export async function listTokens(prisma: PrismaClient): Promise<TokenSummary[]> {
  const rows = await prisma.apiToken.findMany({ orderBy: { id: 'asc' }, include: withChannel });
  return rows.map(summarize);
}

/** Revokes by numeric id or by name; revoking twice is harmless. */
/** API tokens not revoked (the start-up line says what to do when there is none). */
export function countActiveTokens(prisma: PrismaClient): Promise<number> {
  return prisma.apiToken.count({ where: { revokedAt: null } });
}

export async function revokeToken(prisma: PrismaClient, idOrName: string): Promise<TokenSummary> {
  const where = /^\d+$/.test(idOrName) ? { id: Number(idOrName) } : { name: idOrName };
  const row = await prisma.apiToken.findUnique({ where, include: withChannel });
  if (!row) throw new AppError('NOT_FOUND', `No token with id or name ${JSON.stringify(idOrName)}`);
  if (row.revokedAt) return summarize(row);
  return summarize(await prisma.apiToken.update({ where: { id: row.id }, data: { revokedAt: new Date() }, include: withChannel }));
}

/**
 * Checks a presented bearer token. lastUsedAt is written at most once per `lastUsedResolutionMs`
 * per token so that polling does not turn every read into a write.
 */
export async function verifyToken(
  prisma: PrismaClient,
  presented: string,
  options: { lastUsedResolutionMs: number; cache?: TokenCache | undefined },
): Promise<AuthInfo | null> {
  if (!presented.startsWith(TOKEN_PREFIX) || presented.length > 200) return null;
  const presentedHash = hashToken(presented);
  const presentedHex = presentedHash.toString('hex');
  const load = () => lookUpToken(prisma, presentedHex, presentedHash, options);
  return options.cache ? options.cache.lookup(presentedHex, load) : load();
}

async function lookUpToken(
  prisma: PrismaClient,
  presentedHex: string,
  presentedHash: Buffer,
  options: { lastUsedResolutionMs: number },
): Promise<AuthInfo | null> {
  const row = await prisma.apiToken.findUnique({ where: { tokenHash: presentedHex } });
  if (!row || row.revokedAt) return null;
  // The lookup is by hash already; the constant-time comparison keeps it so should the lookup change.
  if (!timingSafeEqual(Buffer.from(row.tokenHash, 'hex'), presentedHash)) return null;
  const now = Date.now();
  if (!row.lastUsedAt || now - row.lastUsedAt.getTime() >= options.lastUsedResolutionMs) {
    await prisma.apiToken.update({ where: { id: row.id }, data: { lastUsedAt: new Date(now) } });
  }
  return {
    key: `token:${row.tokenHash.slice(0, 32)}`,
    name: row.name,
    role: row.role,
    channelId: row.channelId,
    tokenHash: row.tokenHash,
  };
}

type TokenRow = Omit<TokenSummary, 'channel'> & { channel: { name: string } | null };

function summarize(row: TokenRow): TokenSummary {
  const { id, name, role, createdAt, lastUsedAt, revokedAt } = row;
  return { id, name, role, channel: row.channel?.name ?? DEFAULT_CHANNEL, createdAt, lastUsedAt, revokedAt };
}

/** The channel a new token is bound to: null for default; another only for a role that reads a feed alone. */
async function channelIdFor(prisma: PrismaClient, role: TokenRole, channel: string): Promise<number | null> {
  if (channel === DEFAULT_CHANNEL) return null;
  if (!CHANNEL_ROLES.includes(role)) {
    throw new AppError(
      'VALIDATION_FAILED',
      `A ${role} token reads channel ${DEFAULT_CHANNEL}; only ${CHANNEL_ROLES.join(' and ')} tokens are bound to another`,
      [{ field: 'channel', message: `Only for roles ${CHANNEL_ROLES.join(', ')}` }],
    );
  }
  const row = await prisma.channel.findUnique({ where: { name: channel } });
  if (!row)
    throw new AppError('VALIDATION_FAILED', `No channel named ${JSON.stringify(channel)}`, [
      { field: 'channel', message: 'No such channel' },
    ]);
  return row.id;
}
