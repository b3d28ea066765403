import { createHmac } from 'node:crypto';
import pino from 'pino';
import { Webhook } from 'standardwebhooks';
import { createToken } from '../../src/auth/token.service';
import { createWorker } from '../../src/queue/worker';
import { decodeKeyring } from '../../src/deliveries/signing-keys';
import { rotateWebhookSecret } from '../../src/webhooks/webhook.service';
import { backends, clearDeliveries } from '../support/database';
import { graphqlData, useApiFixture } from '../support/http';
import { useReceiver, type ReceivedRequest } from '../support/receiver';
import { svixVerify } from '../support/svix-verify';

const logger = pino({ level: 'silent' });

const headersOf = (request: ReceivedRequest) => ({
  'webhook-id': String(request.headers['webhook-id']),
  'webhook-timestamp': String(request.headers['webhook-timestamp']),
  'webhook-signature': String(request.headers['webhook-signature']),
});
/** Whether a receiver holding this secret accepts the request, with each library. */
const verifies = (secret: string, request: ReceivedRequest) => {
  const standard = (() => {
    try {
      new Webhook(secret).verify(request.body, headersOf(request));
      return true;
    } catch {
      return false;
    }
  })();
  const svix = (() => {
    try {
      svixVerify(secret, request.body, request.headers);
      return true;
    } catch {
      return false;
    }
  })();
  return { standardwebhooks: standard, svix };
};
const BOTH = { standardwebhooks: true, svix: true };
const NEITHER = { standardwebhooks: false, svix: false };

describe.each(backends)('webhook secrets and test events on %s', (backend) => {
  const ctx = useApiFixture(backend);
  const receiver = useReceiver({ status: 204 });
  let adminToken: string;

  const asAdmin = (query: string, variables?: Record<string, unknown>) => graphqlData(ctx.api, adminToken, query, variables);
  /** Reports a failure and lets a worker deliver it; returns what the receiver got. */
  const deliverOne = async (externalId: string) => {
    const before = receiver.requests.length;
    await ctx.api.request('POST', '/api/v1/failures', {
      body: { entity_type: 'product', external_id: externalId, source: 'erp', error_message: 'x' },
    });
    expect(await createWorker({ database: ctx.db.prisma, secrets: ctx.api.secrets, logger }).runOnce()).toBe(1);
    expect(receiver.requests).toHaveLength(before + 1);
    return receiver.requests[before]!;
  };

  beforeAll(async () => {
    adminToken = (await createToken(ctx.db.prisma, `admin-secrets-${backend}`, 'admin')).token;
  });
  beforeEach(async () => {
    await clearDeliveries(ctx.db.prisma);
  });

  const create = `mutation($url: String!) { createWebhookConfig(url: $url, entityType: product, direction: to_webshop) { id newSecret } }`;
  const rotate = `mutation($id: Int!, $grace: Int) { rotateWebhookSecret(id: $id, graceSeconds: $grace) { id newSecret } }`;

  it('generates a whsec_ secret shown once, which standardwebhooks and Svix verify unmodified', async () => {
    const { createWebhookConfig: created } = await asAdmin(create, { url: receiver.url });
    expect(created.newSecret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const { webhookConfigs } = await asAdmin('{ webhookConfigs { id newSecret } }');
    expect(webhookConfigs).toEqual([{ id: created.id, newSecret: null }]);
    const stored = await ctx.db.prisma.webhookConfig.findFirstOrThrow();
    expect(stored.secretEncrypted).not.toContain(created.newSecret.slice(6));

    const request = await deliverOne('SKU-WHSEC');
    expect(verifies(created.newSecret, request)).toEqual(BOTH);
    const key = Buffer.from(created.newSecret.slice(6), 'base64');
    expect(request.headers['x-webhook-signature']).toBe(createHmac('sha256', key).update(request.body).digest('hex'));
  });

  it('takes a given whsec_ secret decoded, and refuses a malformed one naming secret', async () => {
    const secret = `whsec_${Buffer.from('a-key-of-twenty-four-bytes!!').toString('base64')}`;
    await asAdmin(
      `mutation($url: String!, $secret: String) { createWebhookConfig(url: $url, entityType: product, direction: to_webshop, secret: $secret) { id } }`,
      { url: receiver.url, secret },
    );
    expect(verifies(secret, await deliverOne('SKU-GIVEN'))).toEqual(BOTH);
    const bad = await ctx.api.request('POST', '/graphql', {
      token: adminToken,
      body: {
        query: `mutation { createWebhookConfig(url: "${receiver.url}", entityType: product, direction: to_erp, secret: "whsec_c2hvcnQ=") { id } }`,
      },
    });
    expect(bad.body.errors[0].extensions).toMatchObject({
      code: 'VALIDATION_FAILED',
      details: [{ field: 'secret', message: expect.stringMatching(/24 to 64 bytes/) }],
    });
  });

  it('rotates: both secrets verify during the grace period, only the new one after it; a raw secret rotates too', async () => {
    const raw = 'legacy-raw-secret-0123';
    await ctx.api.request('POST', '/graphql', {
      token: adminToken,
      body: {
        query: `mutation { createWebhookConfig(url: "${receiver.url}", entityType: product, direction: to_webshop, secret: "${raw}") { id } }`,
      },
    });
    const id = (await ctx.db.prisma.webhookConfig.findFirstOrThrow()).id;
    const legacy = await deliverOne('SKU-RAW');
    expect(new Webhook(raw, { format: 'raw' }).verify(legacy.body, headersOf(legacy))).toBeTruthy();

    const first = (await asAdmin(rotate, { id, grace: 3600 })).rotateWebhookSecret.newSecret as string;
    const during = await deliverOne('SKU-ROT-1');
    expect(String(during.headers['webhook-signature']).split(' ')).toHaveLength(2);
    expect(verifies(first, during)).toEqual(BOTH);
    expect(new Webhook(raw, { format: 'raw' }).verify(during.body, headersOf(during))).toBeTruthy();

    const second = (await asAdmin(rotate, { id, grace: 3600 })).rotateWebhookSecret.newSecret as string;
    const next = await deliverOne('SKU-ROT-2');
    expect(verifies(second, next)).toEqual(BOTH);
    expect(verifies(first, next)).toEqual(BOTH);
    expect(() => new Webhook(raw, { format: 'raw' }).verify(next.body, headersOf(next))).toThrow();

    // A grace period that is over: the old secret no longer signs.
    const third = (await rotateWebhookSecret(ctx.db.prisma, ctx.api.secrets, id, { graceSeconds: 60, now: new Date(Date.now() - 120_000) }))
      .newSecret!;
    const after = await deliverOne('SKU-ROT-3');
    expect(String(after.headers['webhook-signature']).split(' ')).toHaveLength(1);
    expect(verifies(third, after)).toEqual(BOTH);
    expect(verifies(second, after)).toEqual(NEITHER);

    const bad = await ctx.api.request('POST', '/graphql', {
      token: adminToken,
      body: { query: `mutation { rotateWebhookSecret(id: ${id}, graceSeconds: -1) { id } }` },
    });
    expect(bad.body.errors[0].extensions).toMatchObject({ code: 'VALIDATION_FAILED', details: [{ field: 'graceSeconds' }] });
    const missing = await ctx.api.request('POST', '/graphql', {
      token: adminToken,
      body: { query: 'mutation { rotateWebhookSecret(id: 999999) { id } }' },
    });
    expect(missing.body.errors[0].extensions.code).toBe('NOT_FOUND');
    const denied = await ctx.api.graphql(`mutation { rotateWebhookSecret(id: ${id}) { id } }`);
    expect(denied.body.errors[0].extensions.code).toBe('FORBIDDEN');
  });

  it('never hands out a secret that a concurrent rotation silently dropped', async () => {
    const { createWebhookConfig: created } = await asAdmin(create, { url: receiver.url });
    for (let round = 0; round < 5; round++) {
      const results = await Promise.allSettled(
        [0, 1, 2].map(() => rotateWebhookSecret(ctx.db.prisma, ctx.api.secrets, created.id, { graceSeconds: 3600 })),
      );
      const stored = await ctx.db.prisma.webhookConfig.findUniqueOrThrow({ where: { id: created.id } });
      const keys = decodeKeyring(ctx.api.secrets.decrypt(stored.secretEncrypted)).keys.map((k) => k.secret);
      for (const result of results) {
        if (result.status === 'fulfilled') expect(keys).toContain(result.value.newSecret);
        else expect(result.reason).toMatchObject({ code: 'CONFLICT' });
      }
      expect(results.some((r) => r.status === 'fulfilled')).toBe(true);
    }
  });

  it('sends a signed webhook.test event over REST and GraphQL and answers the attempt, queueing nothing', async () => {
    const { createWebhookConfig: created } = await asAdmin(create, { url: receiver.url });
    await asAdmin(`mutation { updateWebhookConfig(id: ${created.id}, active: false) { id } }`);
    receiver.answer = () => ({ status: 200, headers: { 'content-type': 'application/json' }, body: '{"received":true}' });

    const res = await ctx.api.request('POST', `/api/v1/webhooks/${created.id}/test`, { token: adminToken });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      webhookId: created.id,
      outcome: 'delivered',
      statusCode: 200,
      error: null,
      responseBodyExcerpt: '{"received":true}',
      messageId: expect.stringMatching(/^msg_[0-9a-f]{32}$/),
    });
    expect(res.body.durationMs).toEqual(expect.any(Number));
    expect(receiver.requests).toHaveLength(1);
    const [request] = receiver.requests;
    expect(request!.body).toBe(res.body.body);
    expect(JSON.parse(request!.body)).toEqual({
      event: 'webhook.test',
      webhook_id: created.id,
      entity_type: 'product',
      direction: 'to_webshop',
      sent_at: expect.any(String),
    });
    expect(request!.headers['webhook-id']).toBe(res.body.messageId);
    expect(verifies(created.newSecret, request!)).toEqual(BOTH);

    receiver.answer = () => ({ status: 503, body: 'x'.repeat(2_000) });
    const { testWebhook } = await asAdmin(`mutation { testWebhook(id: ${created.id}) { outcome statusCode error responseBodyExcerpt } }`);
    expect(testWebhook).toMatchObject({ outcome: 'failed', statusCode: 503, error: 'HTTP 503' });
    expect(testWebhook.responseBodyExcerpt).toHaveLength(512);

    expect(await ctx.db.prisma.outboundQueueItem.count()).toBe(0);
    expect((await ctx.api.request('POST', `/api/v1/webhooks/${created.id}/test`)).status).toBe(403);
    expect((await ctx.api.request('POST', '/api/v1/webhooks/999999/test', { token: adminToken })).status).toBe(404);
    const badId = await ctx.api.request('POST', '/api/v1/webhooks/abc/test', { token: adminToken });
    expect(badId.status).toBe(400);
    expect(badId.body.error.details[0].field).toBe('id');
    const extra = await ctx.api.request('POST', `/api/v1/webhooks/${created.id}/test`, {
      token: adminToken,
      body: { url: 'http://169.254.169.254/' },
    });
    expect(extra.status).toBe(400);
  });

  it('reports a test event to a blocked address as blocked, with nothing sent', async () => {
    const row = await ctx.db.prisma.webhookConfig.create({
      data: {
        url: 'http://169.254.169.254/latest/meta-data/',
        entityType: 'product',
        direction: 'to_erp',
        active: true,
        secretEncrypted: ctx.api.secrets.encrypt('legacy-raw-secret-123'),
      },
    });
    const res = await ctx.api.request('POST', `/api/v1/webhooks/${row.id}/test`, { token: adminToken });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      outcome: 'blocked',
      statusCode: null,
      error: expect.stringMatching(/^blocked: 169.254.169.254 is a link-local address/),
    });
  });
});
