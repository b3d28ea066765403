import { requireAdmin } from '../auth/roles';
import { builder } from '../graphql/builder';
import { FailureEntityType } from '../failures/failure-enums';
import type { FAILURE_ENTITY_TYPES } from '../failures/failure.input';
import { createWebhook, listWebhooks, removeWebhook, updateWebhook, WEBHOOK_DIRECTIONS, type WebhookView } from './webhook.service';

const WebhookDirection = builder.enumType('WebhookDirection', { values: WEBHOOK_DIRECTIONS });

const WebhookConfig = builder.objectRef<WebhookView>('WebhookConfig').implement({
  description: 'Where sync_failure events are delivered (SPEC 2.10). The secret is write-only.',
  fields: (t) => ({
    id: t.exposeInt('id'),
    url: t.exposeString('url'),
    entityType: t.field({ type: FailureEntityType, resolve: (w) => w.entityType as (typeof FAILURE_ENTITY_TYPES)[number] }),
    direction: t.field({ type: WebhookDirection, resolve: (w) => w.direction as (typeof WEBHOOK_DIRECTIONS)[number] }),
    active: t.exposeBoolean('active'),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
  }),
});

builder.queryField('webhookConfigs', (t) =>
  t.field({
    type: [WebhookConfig],
    description: 'Admin only.',
    resolve: (_root, _args, ctx) => {
      requireAdmin(ctx);
      return listWebhooks(ctx.prisma);
    },
  }),
);

builder.mutationFields((t) => ({
  createWebhookConfig: t.field({
    type: WebhookConfig,
    description: 'Admin only. The secret (16+ characters) signs deliveries and is stored encrypted.',
    args: {
      url: t.arg.string({ required: true }),
      entityType: t.arg({ type: FailureEntityType, required: true }),
      direction: t.arg({ type: WebhookDirection, required: true }),
      secret: t.arg.string({ required: true }),
      active: t.arg.boolean(),
    },
    resolve: (_root, args, ctx) => {
      requireAdmin(ctx);
      return createWebhook(ctx.prisma, ctx.secrets, { ...args, active: args.active ?? true });
    },
  }),
  updateWebhookConfig: t.field({
    type: WebhookConfig,
    description: 'Admin only. Changes the given fields; a new secret replaces the old one.',
    args: {
      id: t.arg.int({ required: true }),
      url: t.arg.string(),
      entityType: t.arg({ type: FailureEntityType }),
      direction: t.arg({ type: WebhookDirection }),
      secret: t.arg.string(),
      active: t.arg.boolean(),
    },
    resolve: (_root, { id, ...patch }, ctx) => {
      requireAdmin(ctx);
      return updateWebhook(ctx.prisma, ctx.secrets, id, {
        url: patch.url ?? undefined,
        entityType: patch.entityType ?? undefined,
        direction: patch.direction ?? undefined,
        secret: patch.secret ?? undefined,
        active: patch.active ?? undefined,
      });
    },
  }),
  removeWebhookConfig: t.field({
    type: WebhookConfig,
    description: 'Admin only. Queued deliveries to it will fail; past deliveries keep their history.',
    args: { id: t.arg.int({ required: true }) },
    resolve: (_root, args, ctx) => {
      requireAdmin(ctx);
      return removeWebhook(ctx.prisma, args.id);
    },
  }),
}));
