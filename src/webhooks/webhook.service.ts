import { z } from 'zod';
import type { PrismaClient, WebhookConfig } from '../generated/prisma/client';
import { notFound } from '../errors/app-error';
import { parseInput } from '../errors/zod-details';
import { FAILURE_ENTITY_TYPES } from '../failures/failure.input';
import type { SecretBox } from './secret-box';

export const WEBHOOK_DIRECTIONS = ['to_erp', 'to_webshop'] as const;

const webhookInput = z.object({
  url: z.url({ protocol: /^https?$/, message: 'Must be an http(s) URL' }),
  entityType: z.enum(FAILURE_ENTITY_TYPES),
  direction: z.enum(WEBHOOK_DIRECTIONS),
  secret: z.string().min(16, 'At least 16 characters').max(512),
  active: z.boolean().default(true),
});

export type WebhookInput = z.input<typeof webhookInput>;

/** A configuration as shown to operators: the secret is write-only. */
export type WebhookView = Omit<WebhookConfig, 'secretEncrypted'>;

const view = ({ secretEncrypted: _secret, ...rest }: WebhookConfig): WebhookView => rest;

export async function createWebhook(prisma: PrismaClient, box: SecretBox, input: WebhookInput): Promise<WebhookView> {
  const w = parseInput(webhookInput, input);
  const row = await prisma.webhookConfig.create({
    data: { url: w.url, entityType: w.entityType, direction: w.direction, active: w.active, secretEncrypted: box.encrypt(w.secret) },
  });
  return view(row);
}

export async function updateWebhook(
  prisma: PrismaClient,
  box: SecretBox,
  id: number,
  patch: Partial<WebhookInput>,
): Promise<WebhookView> {
  const p = parseInput(webhookInput.partial(), Object.fromEntries(Object.entries(patch).filter(([, v]) => v != null)));
  await findWebhook(prisma, id);
  const row = await prisma.webhookConfig.update({
    where: { id },
    data: {
      ...(p.url ? { url: p.url } : {}),
      ...(p.entityType ? { entityType: p.entityType } : {}),
      ...(p.direction ? { direction: p.direction } : {}),
      ...(p.active !== undefined ? { active: p.active } : {}),
      ...(p.secret ? { secretEncrypted: box.encrypt(p.secret) } : {}),
      updatedAt: new Date(),
    },
  });
  return view(row);
}

export async function listWebhooks(prisma: PrismaClient): Promise<WebhookView[]> {
  return (await prisma.webhookConfig.findMany({ orderBy: { id: 'asc' } })).map(view);
}

/** Queued deliveries to a removed configuration fail; deliveries already made keep their history. */
export async function removeWebhook(prisma: PrismaClient, id: number): Promise<WebhookView> {
  const row = await findWebhook(prisma, id);
  await prisma.webhookConfig.delete({ where: { id } });
  return view(row);
}

async function findWebhook(prisma: PrismaClient, id: number): Promise<WebhookConfig> {
  const row = await prisma.webhookConfig.findUnique({ where: { id } });
  if (!row) throw notFound('Webhook configuration', id);
  return row;
}
