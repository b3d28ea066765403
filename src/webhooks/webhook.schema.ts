import { allow } from '../graphql/access';
import { builder } from '../graphql/builder';
import { FailureEntityType } from '../failures/failure-enums';
import { HEALTH_STATES, healthOf, type EndpointHealth } from '../deliveries/endpoint-health';
import { sendTestEvent, TEST_EVENT, type WebhookTestResult } from './webhook-test.service';
import {
  createWebhook,
  DEFAULT_ROTATION_GRACE_SECONDS,
  getWebhook,
  listWebhooks,
  removeWebhook,
  rotateWebhookSecret,
  signatureSwitchOf,
  updateWebhook,
  WEBHOOK_DIRECTIONS,
  type WebhookView,
} from './webhook.service';

const WebhookDirection = builder.enumType('WebhookDirection', { values: WEBHOOK_DIRECTIONS });

const WebhookHealthState = builder.enumType('WebhookHealthState', {
  values: HEALTH_STATES,
  description:
    'healthy: the last delivery attempt succeeded (or none was made yet); failing: attempts have failed since the last success; ' +
    'disabled: inactive, by hand or by the worker after failing WEBHOOK_DISABLE_AFTER_HOURS.',
});

const WebhookHealth = builder.objectRef<EndpointHealth>('WebhookHealth').implement({
  description: 'How deliveries to this configuration fare (test events never count). Updated by the worker as results land.',
  fields: (t) => ({
    state: t.field({ type: WebhookHealthState, resolve: (h) => h.state }),
    lastSuccessAt: t.expose('lastSuccessAt', { type: 'DateTime', nullable: true, description: 'The last successful delivery.' }),
    failingSince: t.expose('failingSince', {
      type: 'DateTime',
      nullable: true,
      description: 'The first failed attempt since the last success; null unless failing (or disabled while failing).',
    }),
    consecutiveFailedItems: t.exposeInt('consecutiveFailedItems', {
      description: 'Deliveries abandoned (no more retries) since the last success.',
    }),
    autoDisabledAt: t.expose('autoDisabledAt', {
      type: 'DateTime',
      nullable: true,
      description: 'When the worker disabled the configuration for failing too long; null when it did not. Enabling it again clears it.',
    }),
  }),
});

const WebhookConfig = builder.objectRef<WebhookView>('WebhookConfig').implement({
  description: 'Where sync_failure events are delivered (SPEC 2.10). The secret is write-only.',
  fields: (t) => ({
    id: t.exposeInt('id'),
    url: t.exposeString('url'),
    entityType: t.field({ type: FailureEntityType, resolve: (w) => w.entityType }),
    direction: t.field({ type: WebhookDirection, resolve: (w) => w.direction }),
    active: t.exposeBoolean('active'),
    kind: t.exposeString('kind', {
      description:
        'failures: sync_failure events of its entity type and direction; changes: a channel’s change records (change webhooks, see Channel.push), ' +
        'whose entity type and direction say nothing.',
    }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
    health: t.field({ type: WebhookHealth, resolve: healthOf }),
    newSecret: t.string({
      nullable: true,
      description:
        'The whsec_ secret this mutation generated (createWebhookConfig without a secret, rotateWebhookSecret): shown only in that answer, null everywhere else. ' +
        'Receivers verify with `new Webhook(secret).verify(body, headers)` from the standardwebhooks or svix packages.',
      resolve: (w) => w.newSecret ?? null,
    }),
    signatureSwitchAt: t.field({
      type: 'DateTime',
      nullable: true,
      description:
        'When X-Webhook-Signature switches to the current secret: the end of the grace period of rotateWebhookSecret. Until then X-Webhook-Signature ' +
        'carries the old secret (what a receiver written against SPEC 6.1 still knows) and X-Webhook-Signature-Next the new one; from then on ' +
        'X-Webhook-Signature carries the new one and -Next is not sent. The rotation answers it always (the rotation itself when graceSeconds is 0); ' +
        'elsewhere null when no grace period is running.',
      resolve: (w, _args, ctx) => signatureSwitchOf(w, ctx.secrets),
    }),
  }),
});

const WebhookTestOutcome = builder.enumType('WebhookTestOutcome', { values: ['delivered', 'failed', 'blocked'] as const });

const WebhookTestResultRef = builder.objectRef<WebhookTestResult>('WebhookTestResult').implement({
  description: `The attempt of a ${TEST_EVENT} event: sent at once, signed like every delivery, never queued or retried.`,
  fields: (t) => ({
    webhookId: t.exposeInt('webhookId'),
    messageId: t.exposeString('messageId', { description: 'The webhook-id header of the attempt.' }),
    outcome: t.field({ type: WebhookTestOutcome, resolve: (r) => r.outcome }),
    statusCode: t.exposeInt('statusCode', { nullable: true, description: "The receiver's HTTP status; null when no answer came." }),
    durationMs: t.exposeInt('durationMs'),
    error: t.exposeString('error', {
      nullable: true,
      description: 'As in lastError: HTTP <status>, connection refused, timeout, blocked: <reason>…',
    }),
    responseBodyExcerpt: t.exposeString('responseBodyExcerpt', {
      nullable: true,
      description: "The first 512 bytes of the receiver's answer.",
    }),
    body: t.exposeString('body', { description: 'The exact JSON body that was signed and sent.' }),
  }),
});

builder.queryFields((t) => ({
  webhookConfigs: t.field({
    ...allow('admin'),
    type: [WebhookConfig],
    description: 'Admin only. Every configuration with its health, oldest first.',
    resolve: (_root, _args, ctx) => {
      return listWebhooks(ctx.prisma);
    },
  }),
  webhookConfig: t.field({
    ...allow('admin'),
    type: WebhookConfig,
    description: 'Admin only. One configuration with its health; NOT_FOUND for an unknown id.',
    args: { id: t.arg.int({ required: true }) },
    resolve: (_root, args, ctx) => {
      return getWebhook(ctx.prisma, args.id);
    },
  }),
}));

builder.mutationFields((t) => ({
  createWebhookConfig: t.field({
    ...allow('admin'),
    type: WebhookConfig,
    description:
      'Admin only. The secret signs deliveries and is stored encrypted. Leave it out to get a generated whsec_ secret, returned once in newSecret. ' +
      'A given whsec_ secret (base64 of 24 to 64 bytes) is decoded for the HMAC as Standard Webhooks does; any other secret (16+ characters) is used as raw bytes. ' +
      'A URL whose host is a loopback, link-local, multicast or unspecified address is refused (WEBHOOK_ALLOWED_NETWORKS).',
    args: {
      url: t.arg.string({ required: true }),
      entityType: t.arg({ type: FailureEntityType, required: true }),
      direction: t.arg({ type: WebhookDirection, required: true }),
      secret: t.arg.string(),
      active: t.arg.boolean(),
    },
    resolve: (_root, args, ctx) => {
      return createWebhook(ctx.prisma, ctx.secrets, { ...args, secret: args.secret ?? undefined, active: args.active ?? true });
    },
  }),
  updateWebhookConfig: t.field({
    ...allow('admin'),
    type: WebhookConfig,
    description:
      'Admin only. Changes the given fields; a new secret replaces the old one at once (rotateWebhookSecret keeps the old one valid for a while). ' +
      'Enabling a disabled configuration (active: true) or changing its url starts its health afresh (healthy, no failure streak).',
    args: {
      id: t.arg.int({ required: true }),
      url: t.arg.string(),
      entityType: t.arg({ type: FailureEntityType }),
      direction: t.arg({ type: WebhookDirection }),
      secret: t.arg.string(),
      active: t.arg.boolean(),
    },
    resolve: (_root, { id, ...patch }, ctx) => {
      return updateWebhook(ctx.prisma, ctx.secrets, id, {
        url: patch.url ?? undefined,
        entityType: patch.entityType ?? undefined,
        direction: patch.direction ?? undefined,
        secret: patch.secret ?? undefined,
        active: patch.active ?? undefined,
      });
    },
  }),
  rotateWebhookSecret: t.field({
    ...allow('admin'),
    type: WebhookConfig,
    description:
      'Admin only. Generates a new whsec_ secret (returned once in newSecret) that signs from now on. The old secret keeps signing too for graceSeconds ' +
      `(default ${DEFAULT_ROTATION_GRACE_SECONDS}, at most 30 days, 0 drops it at once): webhook-signature then carries two v1 signatures, so receivers accept deliveries with either secret while they switch, ` +
      'X-Webhook-Signature keeps the old secret and X-Webhook-Signature-Next carries the new one. At the end of the grace period (signatureSwitchAt in the answer) ' +
      'X-Webhook-Signature switches to the new secret and the old one signs nothing more.',
    args: { id: t.arg.int({ required: true }), graceSeconds: t.arg.int() },
    resolve: (_root, args, ctx) => {
      return rotateWebhookSecret(ctx.prisma, ctx.secrets, args.id, { graceSeconds: args.graceSeconds ?? undefined });
    },
  }),
  testWebhook: t.field({
    ...allow('admin'),
    type: WebhookTestResultRef,
    description:
      `Admin only. Sends a signed ${TEST_EVENT} event to the configuration now (active or not) and answers the attempt. ` +
      'Body: {"event":"webhook.test","webhook_id","entity_type","direction","sent_at"}. Not queued, not retried, not counted in delivery metrics.',
    args: { id: t.arg.int({ required: true }) },
    resolve: (_root, args, ctx) => {
      return sendTestEvent(ctx.prisma, ctx.secrets, args.id);
    },
  }),
  removeWebhookConfig: t.field({
    ...allow('admin'),
    type: WebhookConfig,
    description: 'Admin only. Queued deliveries to it will fail; past deliveries keep their history.',
    args: { id: t.arg.int({ required: true }) },
    resolve: (_root, args, ctx) => {
      return removeWebhook(ctx.prisma, args.id);
    },
  }),
}));
