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
  createdAt: Date;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
};

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
): Promise<{ token: string; summary: TokenSummary }> {
  const trimmed = name.trim();
  if (!tokenName.safeParse(trimmed).success) {
    throw new AppError('VALIDATION_FAILED', 'A token name is 1 to 100 characters', [{ field: 'name', message: '1 to 100 characters' }]);
  }
  if (await prisma.apiToken.findUnique({ where: { name: trimmed } })) {
    throw new AppError('CONFLICT', `A token named ${JSON.stringify(trimmed)} already exists`);
  }
  const token = TOKEN_PREFIX + randomBytes(TOKEN_BYTES).toString('base64url');
  const row = await prisma.apiToken.create({
    data: { name: trimmed, role, tokenHash: hashToken(token).toString('hex') },
  });
  return { token, summary: summarize(row) };
}

export async function listTokens(prisma: PrismaClient): Promise<TokenSummary[]> {
  const rows = await prisma.apiToken.findMany({ orderBy: { id: 'asc' } });
  return rows.map(summarize);
}

/** Revokes by numeric id or by name; revoking twice is harmless. */
/** API tokens not revoked (the start-up line says what to do when there is none). */
export function countActiveTokens(prisma: PrismaClient): Promise<number> {
  return prisma.apiToken.count({ where: { revokedAt: null } });
}

export async function revokeToken(prisma: PrismaClient, idOrName: string): Promise<TokenSummary> {
  const where = /^\d+$/.test(idOrName) ? { id: Number(idOrName) } : { name: idOrName };
  const row = await prisma.apiToken.findUnique({ where });
  if (!row) throw new AppError('NOT_FOUND', `No token with id or name ${JSON.stringify(idOrName)}`);
  if (row.revokedAt) return summarize(row);
  return summarize(await prisma.apiToken.update({ where: { id: row.id }, data: { revokedAt: new Date() } }));
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
  return { key: `token:${row.tokenHash.slice(0, 32)}`, name: row.name, role: row.role, tokenHash: row.tokenHash };
}

function summarize(row: TokenSummary & { tokenHash?: string }): TokenSummary {
  const { id, name, role, createdAt, lastUsedAt, revokedAt } = row;
  return { id, name, role, createdAt, lastUsedAt, revokedAt };
}
