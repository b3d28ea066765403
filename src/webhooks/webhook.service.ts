import { z } from 'zod';
import type { PrismaClient, WebhookConfig } from '../generated/prisma/client';
import { WebhookDirection } from '../generated/prisma/enums';
import { AppError, notFound } from '../errors/app-error';
import { parseInput } from '../validation/zod-details';
import { FAILURE_ENTITY_TYPES } from '../failures/failure.input';
import { urlRefusal, webhookNetworkPolicy } from '../deliveries/network-policy';
import type { SecretBox } from '../deliveries/secret-box';
import {
  decodeKeyring,
  encodeKeyring,
  formatOf,
  generateSecret,
  keyringOf,
  rotateKeyring,
  signatureSwitchAt,
  whsecProblem,
} from '../deliveries/signing-keys';

/** The values of the database's webhook_direction enum (schema.prisma), in its order. */
export const WEBHOOK_DIRECTIONS = Object.values(WebhookDirection);

/** A rotation keeps the old secret valid this long unless told otherwise. */
export const DEFAULT_ROTATION_GRACE_SECONDS = 24 * 3600;
export const MAX_ROTATION_GRACE_SECONDS = 30 * 24 * 3600;

const webhookUrl = z.url({ protocol: /^https?$/, message: 'Must be an http(s) URL' }).superRefine((url, ctx) => {
  if (!URL.canParse(url) || !/^https?:$/.test(new URL(url).protocol)) return; // reported above
  const refusal = urlRefusal(url, webhookNetworkPolicy());
  if (refusal)
    ctx.addIssue({ code: 'custom', message: `Deliveries to this address are refused: ${refusal} (see WEBHOOK_ALLOWED_NETWORKS)` });
});

/** A `whsec_` secret must be Standard Webhooks base64; any other secret is raw text as before. */
const webhookSecret = z
  .string()
  .max(512)
  .superRefine((secret, ctx) => {
    const problem = formatOf(secret) === 'whsec' ? whsecProblem(secret) : secret.length < 16 ? 'At least 16 characters' : undefined;
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  });

/** A configuration as given by an operator (also validated by the CLI before it opens the store). */
export const webhookInput = z.object({
  url: webhookUrl,
  entityType: z.enum(FAILURE_ENTITY_TYPES),
  direction: z.enum(WebhookDirection),
  secret: webhookSecret.optional(),
  active: z.boolean().default(true),
});

export type WebhookInput = z.input<typeof webhookInput>;

/**
 * The stored (encrypted) secret travels with a view under a symbol: JSON, and so every CLI
 * answer, leaves it out, and only a field that needs the keyring (signatureSwitchAt) opens it.
 */
const SEALED_SECRET = Symbol('sealed webhook secret');

/**
 * A configuration as shown to operators: the secret is write-only, except `newSecret`, the
 * secret this very call generated (creation without a secret, rotation), shown once. A rotation
 * answers `signatureSwitchAt` too; other views compute it on demand (`signatureSwitchOf`).
 */
export type WebhookView = Omit<WebhookConfig, 'secretEncrypted'> & {
  newSecret?: string;
  signatureSwitchAt?: Date | null;
  [SEALED_SECRET]: string;
};

const view = ({ secretEncrypted, ...rest }: WebhookConfig): WebhookView => ({ ...rest, [SEALED_SECRET]: secretEncrypted });

const epochSecondsOf = (date: Date): number => Math.floor(date.getTime() / 1000);

/**
 * When X-Webhook-Signature switches from the previous secret to the current one, the end of a
 * rotation's grace period; null when no switch is ahead (that header carries the current secret).
 */
export function signatureSwitchOf(w: WebhookView, box: SecretBox, now: Date = new Date()): Date | null {
  if (w.signatureSwitchAt !== undefined) return w.signatureSwitchAt;
  let keyring: ReturnType<typeof decodeKeyring>;
  try {
    keyring = decodeKeyring(box.decrypt(w[SEALED_SECRET]));
  } catch {
    // A secret this key cannot open (ENCRYPTION_KEY changed) signs nothing: listing the
    // configuration must still work, so that an operator can see and replace it.
    return null;
  }
  const at = signatureSwitchAt(keyring, epochSecondsOf(now));
  return at === undefined ? null : new Date(at * 1000);
}

/** Without a secret, a `whsec_` one is generated and returned once in `newSecret`. */
export async function createWebhook(prisma: PrismaClient, box: SecretBox, input: WebhookInput): Promise<WebhookView> {
  const w = parseInput(webhookInput, input);
  const generated = w.secret === undefined ? generateSecret() : undefined;
  const row = await prisma.webhookConfig.create({
    data: {
      url: w.url,
      entityType: w.entityType,
      direction: w.direction,
      active: w.active,
      secretEncrypted: box.encrypt(encodeKeyring(keyringOf(w.secret ?? generated!))),
    },
  });
  return { ...view(row), ...(generated ? { newSecret: generated } : {}) };
}

/** Where a push channel's change records go (ADR 0047): a URL, and how many records per delivery. */
export const changesTargetInput = z.object({ url: webhookUrl, batchSize: z.number().int().min(1).max(500).optional() });

/**
 * Points channel `channelId` (null: default) at a URL as a configuration of kind `changes`: a new
 * one with a generated `whsec_` secret (shown once, in newSecret), or the existing one with a new
 * URL and batch size (its secret, health and attempt log kept; rotate it as any other).
 */
export async function setChangesTarget(
  prisma: PrismaClient,
  box: SecretBox,
  channelId: number | null,
  input: z.input<typeof changesTargetInput>,
): Promise<WebhookView> {
  const t = parseInput(changesTargetInput, input);
  const existing = await prisma.webhookConfig.findFirst({ where: { kind: 'changes', channelId } });
  if (existing) {
    const freshStart = t.url !== existing.url ? { failingSince: null, consecutiveFailedItems: 0, autoDisabledAt: null } : {};
    const row = await prisma.webhookConfig.update({
      where: { id: existing.id },
      data: { ...freshStart, url: t.url, batchSize: t.batchSize ?? existing.batchSize, updatedAt: new Date() },
    });
    return view(row);
  }
  const secret = generateSecret();
  const row = await prisma.webhookConfig.create({
    data: {
      kind: 'changes',
      channelId,
      url: t.url,
      batchSize: t.batchSize ?? null,
      // A changes configuration matches no failure event; these say where its records go.
      entityType: 'product',
      direction: 'to_webshop',
      secretEncrypted: box.encrypt(encodeKeyring(keyringOf(secret))),
    },
  });
  return { ...view(row), newSecret: secret };
}

/**
 * A new secret replaces the old one at once; rotateWebhookSecret keeps the old one valid for a while.
 * Enabling a disabled configuration, or pointing it at a new URL, starts its health afresh
 * (ADR 0022): an old failure streak would otherwise disable it again at its next failure.
 */
/** Fields to change; absent or undefined ones stay as they are. */
export type WebhookPatch = { [K in keyof WebhookInput]?: WebhookInput[K] | undefined };

export async function updateWebhook(prisma: PrismaClient, box: SecretBox, id: number, patch: WebhookPatch): Promise<WebhookView> {
  const p = parseInput(webhookInput.partial(), Object.fromEntries(Object.entries(patch).filter(([, v]) => v != null)));
  const current = await findWebhook(prisma, id);
  const freshStart = (p.active === true && !current.active) || (p.url !== undefined && p.url !== current.url);
  const row = await prisma.webhookConfig.update({
    where: { id },
    data: {
      ...(freshStart ? { failingSince: null, consecutiveFailedItems: 0, autoDisabledAt: null } : {}),
      ...(p.url ? { url: p.url } : {}),
      ...(p.entityType ? { entityType: p.entityType } : {}),
      ...(p.direction ? { direction: p.direction } : {}),
      ...(p.active !== undefined ? { active: p.active } : {}),
      ...(p.secret ? { secretEncrypted: box.encrypt(encodeKeyring(keyringOf(p.secret))) } : {}),
      updatedAt: new Date(),
    },
  });
  return view(row);
}

const rotationInput = z.object({
  graceSeconds: z.number().int().min(0).max(MAX_ROTATION_GRACE_SECONDS, 'At most 30 days').default(DEFAULT_ROTATION_GRACE_SECONDS),
});

/**
 * Generates a new `whsec_` secret (returned once in `newSecret`) that signs from now on; the
 * current secret keeps signing alongside it for the grace period, then is dropped. Until then it
 * is the one X-Webhook-Signature carries (the new one is in X-Webhook-Signature-Next); the answer
 * says when that switches. A secret still in an earlier grace period is dropped at once. Two
 * rotations racing: the second gets a 409.
 */
export async function rotateWebhookSecret(
  prisma: PrismaClient,
  box: SecretBox,
  id: number,
  options: { graceSeconds?: number | undefined; now?: Date } = {},
): Promise<WebhookView> {
  const { graceSeconds } = parseInput(rotationInput, { graceSeconds: options.graceSeconds });
  const row = await findWebhook(prisma, id);
  const now = options.now ?? new Date();
  const newSecret = generateSecret();
  const expiresAt = graceSeconds > 0 ? epochSecondsOf(now) + graceSeconds : undefined;
  const keyring = rotateKeyring(decodeKeyring(box.decrypt(row.secretEncrypted)), newSecret, expiresAt);
  const { count } = await prisma.webhookConfig.updateMany({
    where: { id, secretEncrypted: row.secretEncrypted },
    data: { secretEncrypted: box.encrypt(encodeKeyring(keyring)), updatedAt: now },
  });
  if (count === 0) throw new AppError('CONFLICT', `Webhook configuration ${id} changed while its secret was rotated; rotate again`);
  // The answer says when X-Webhook-Signature switches, even when that is now (no grace period).
  const signatureSwitchAt = new Date((expiresAt ?? epochSecondsOf(now)) * 1000);
  return { ...view(await findWebhook(prisma, id)), newSecret, signatureSwitchAt };
}

export async function getWebhook(prisma: PrismaClient, id: number): Promise<WebhookView> {
  return view(await findWebhook(prisma, id));
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

export async function findWebhook(prisma: PrismaClient, id: number): Promise<WebhookConfig> {
  const row = await prisma.webhookConfig.findUnique({ where: { id } });
  if (!row) throw notFound('Webhook configuration', id);
  return row;
}
