import { z } from 'zod';
import { sendTestEvent } from '../../webhooks/webhook-test.service';
import {
  DEFAULT_ROTATION_GRACE_SECONDS,
  listWebhooks,
  MAX_ROTATION_GRACE_SECONDS,
  removeWebhook,
  rotateWebhookSecret,
  updateWebhook,
  createWebhook,
  webhookInput,
} from '../../webhooks/webhook.service';
import { asJson, defineOperation } from '../operation';

const webhookId = z.object({ id: z.number().int().positive('a webhook id (a positive number)').max(2_147_483_647) });

export const addWebhookOperation = defineOperation({
  name: 'webhook.add',
  args: webhookInput.pick({ url: true, entityType: true, direction: true, secret: true }),
  run: async ({ db, secrets }, args) => asJson(await createWebhook(db.prisma, await secrets(), args)),
});

export const rotateWebhookSecretOperation = defineOperation({
  name: 'webhook.rotate-secret',
  args: webhookId.extend({
    graceSeconds: z.number().int().min(0).max(MAX_ROTATION_GRACE_SECONDS, 'at most 30 days').default(DEFAULT_ROTATION_GRACE_SECONDS),
  }),
  run: async ({ db, secrets }, { id, graceSeconds }) => asJson(await rotateWebhookSecret(db.prisma, await secrets(), id, { graceSeconds })),
});

export const testWebhookOperation = defineOperation({
  name: 'webhook.test',
  args: webhookId,
  run: async ({ db, secrets }, { id }) => asJson(await sendTestEvent(db.prisma, await secrets(), id)),
});

export const listWebhooksOperation = defineOperation({
  name: 'webhook.list',
  args: z.object({}),
  run: async ({ db }) => asJson(await listWebhooks(db.prisma)),
});

export const setWebhookActiveOperation = defineOperation({
  name: 'webhook.set-active',
  args: webhookId.extend({ active: z.boolean() }),
  run: async ({ db, secrets }, { id, active }) => asJson(await updateWebhook(db.prisma, await secrets(), id, { active })),
});

export const removeWebhookOperation = defineOperation({
  name: 'webhook.remove',
  args: webhookId,
  run: async ({ db }, { id }) => asJson(await removeWebhook(db.prisma, id)),
});
