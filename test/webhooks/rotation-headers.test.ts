import { createHmac } from 'node:crypto';
import pino from 'pino';
import { Webhook } from 'standardwebhooks';
import { createToken } from '../../src/auth/token.service';
import { createWorker } from '../../src/queue/worker';
import { sendTestEvent } from '../../src/webhooks/webhook-test.service';
import { getWebhook, signatureSwitchOf } from '../../src/webhooks/webhook.service';
import { backends, clearDeliveries } from '../support/database';
import { graphqlData, useApiFixture } from '../support/http';
import { useReceiver, type ReceivedRequest } from '../support/receiver';

const logger = pino({ level: 'silent' });

/** What a SPEC 6.1 receiver computes: the hex HMAC-SHA256 of the body, keyed by the secret's bytes. */
const specSignature = (secret: string, body: string) =>
  createHmac('sha256', Buffer.from(secret.slice('whsec_'.length), 'base64'))
    .update(body)
    .digest('hex');

/** Which secrets a receiver accepts each header with: the SPEC header, -Next, and Standard Webhooks. */
function accepted(request: ReceivedRequest, secrets: Record<string, string>) {
  const names = Object.keys(secrets);
  const byHeader = (name: string) => {
    const value = request.headers[name];
    if (value === undefined) return 'absent';
    return names.filter((k) => specSignature(secrets[k]!, request.body) === value);
  };
  const standard = names.filter((k) => {
    try {
      new Webhook(secrets[k]!).verify(request.body, {
        'webhook-id': String(request.headers['webhook-id']),
        'webhook-timestamp': String(request.headers['webhook-timestamp']),
        'webhook-signature': String(request.headers['webhook-signature']),
      });
      return true;
    } catch {
      return false;
    }
  });
  return { spec: byHeader('x-webhook-signature'), next: byHeader('x-webhook-signature-next'), standard };
}

/** The call's result with the whole seconds it began and ended in. */
async function timed<T>(call: () => Promise<T>): Promise<{ result: T; fromSecond: number; toSecond: number }> {
  const fromSecond = Math.floor(Date.now() / 1000);
  const result = await call();
  return { result, fromSecond, toSecond: Math.floor(Date.now() / 1000) };
}

const BEFORE = { spec: ['old'], next: 'absent', standard: ['old'] };
const DURING = { spec: ['old'], next: ['fresh'], standard: ['old', 'fresh'] };
const AFTER = { spec: ['fresh'], next: 'absent', standard: ['fresh'] };

describe.each(backends)('signature headers through a secret rotation on %s', (backend) => {
  const ctx = useApiFixture(backend);
  const receiver = useReceiver({ status: 204 });
  let adminToken: string;

  const asAdmin = (query: string, variables?: Record<string, unknown>) => graphqlData(ctx.api, adminToken, query, variables);
  /** Runs a worker whose clock reads `at` (the attempt's webhook-timestamp); returns what reached the receiver. */
  const runWorker = async (at?: Date) => {
    const before = receiver.requests.length;
    const worker = createWorker({ database: ctx.db.prisma, secrets: ctx.api.secrets, logger, ...(at ? { clock: () => at } : {}) });
    await worker.runOnce();
    return receiver.requests.slice(before);
  };
  const report = (externalId: string) =>
    ctx.api.request('POST', '/api/v1/failures', {
      body: { entity_type: 'product', external_id: externalId, source: 'erp', error_message: 'x' },
    });
  const deliverOne = async (externalId: string, at?: Date) => {
    await report(externalId);
    const delivered = await runWorker(at);
    expect(delivered).toHaveLength(1);
    return delivered[0]!;
  };

  beforeAll(async () => {
    adminToken = (await createToken(ctx.db.prisma, `admin-rotation-${backend}`, 'admin')).token;
  });
  beforeEach(async () => {
    await clearDeliveries(ctx.db.prisma);
  });

  const create = `mutation($url: String!) { createWebhookConfig(url: $url, entityType: product, direction: to_webshop) { id newSecret signatureSwitchAt } }`;
  const rotate = `mutation($id: Int!, $grace: Int) { rotateWebhookSecret(id: $id, graceSeconds: $grace) { newSecret signatureSwitchAt } }`;

  it('keeps X-Webhook-Signature on the old secret until the grace ends, the new one on -Next, then switches', async () => {
    const { createWebhookConfig: created } = await asAdmin(create, { url: receiver.url });
    expect(created.signatureSwitchAt).toBeNull();
    const old = created.newSecret as string;
    const id = created.id as number;
    expect(accepted(await deliverOne('SKU-BEFORE'), { old })).toEqual(BEFORE);

    const rotation = await timed(() => asAdmin(rotate, { id, grace: 60 }));
    const rotated = rotation.result.rotateWebhookSecret;
    const fresh = rotated.newSecret as string;
    const secrets = { old, fresh };
    // The answer says when X-Webhook-Signature switches: the rotation's second plus the grace.
    const switchAt = new Date(rotated.signatureSwitchAt);
    expect(switchAt.getTime() / 1000 - 60).toBeGreaterThanOrEqual(rotation.fromSecond);
    expect(switchAt.getTime() / 1000 - 60).toBeLessThanOrEqual(rotation.toSecond);
    expect((await asAdmin(`{ webhookConfig(id: ${id}) { signatureSwitchAt } }`)).webhookConfig.signatureSwitchAt).toBe(
      rotated.signatureSwitchAt,
    );
    const listed = await ctx.api.request('GET', `/api/v1/webhooks/${id}`, { token: adminToken });
    expect(listed.body).toMatchObject({ id, signatureSwitchAt: rotated.signatureSwitchAt, newSecret: null });

    // During the grace: a delivery now, the test event (REST and GraphQL), and one a second before its end.
    expect(accepted(await deliverOne('SKU-DURING'), secrets)).toEqual(DURING);
    const restTest = await ctx.api.request('POST', `/api/v1/webhooks/${id}/test`, { token: adminToken });
    expect(restTest.body.outcome).toBe('delivered');
    await asAdmin(`mutation { testWebhook(id: ${id}) { outcome } }`);
    const [restEvent, graphqlEvent] = receiver.requests.slice(-2);
    expect(accepted(restEvent!, secrets)).toEqual(DURING);
    expect(accepted(graphqlEvent!, secrets)).toEqual(DURING);
    expect(accepted(await deliverOne('SKU-LAST-SECOND', new Date(switchAt.getTime() - 1000)), secrets)).toEqual(DURING);

    // A delivery refused during the grace is retried after it: the retry is signed as of its own time.
    receiver.answer = () => ({ status: 500 });
    const refused = await deliverOne('SKU-RETRIED');
    expect(accepted(refused, secrets)).toEqual(DURING);
    receiver.answer = () => ({ status: 204 });

    // At the end of the grace and after it: the new secret on both headers, the old one nowhere.
    expect(accepted(await deliverOne('SKU-AT-SWITCH', switchAt), secrets)).toEqual(AFTER);
    const [retried] = await runWorker(new Date(switchAt.getTime() + 120_000));
    expect(retried!.headers['webhook-id']).toBe(refused.headers['webhook-id']);
    expect(accepted(retried!, secrets)).toEqual(AFTER);
    const before = receiver.requests.length;
    expect((await sendTestEvent(ctx.db.prisma, ctx.api.secrets, id, switchAt)).outcome).toBe('delivered');
    expect(accepted(receiver.requests[before]!, secrets)).toEqual(AFTER);
    expect(signatureSwitchOf(await getWebhook(ctx.db.prisma, id), ctx.api.secrets, switchAt)).toBeNull();
    expect(await ctx.db.prisma.outboundQueueItem.count({ where: { status: { not: 'completed' } } })).toBe(0);
  });

  it('switches at once without a grace period, and says so', async () => {
    const { createWebhookConfig: created } = await asAdmin(create, { url: receiver.url });
    const rotation = await timed(() => asAdmin(rotate, { id: created.id, grace: 0 }));
    const rotated = rotation.result.rotateWebhookSecret;
    const switchedAt = new Date(rotated.signatureSwitchAt).getTime() / 1000;
    expect(switchedAt).toBeGreaterThanOrEqual(rotation.fromSecond);
    expect(switchedAt).toBeLessThanOrEqual(rotation.toSecond);
    expect((await asAdmin(`{ webhookConfig(id: ${created.id}) { signatureSwitchAt } }`)).webhookConfig.signatureSwitchAt).toBeNull();
    const request = await deliverOne('SKU-NO-GRACE');
    expect(accepted(request, { old: created.newSecret, fresh: rotated.newSecret })).toEqual(AFTER);
  });
});
