import { createHash } from 'node:crypto';
import { createToken } from '../../src/auth/token.service';
import { claimKey, pruneExpiredKeys, releaseKey } from '../../src/idempotency/idempotency.service';
import { createWebhook } from '../../src/webhooks/webhook.service';
import { backends } from '../support/database';
import { failureReport as report } from '../support/failure-report';
import { useApiFixture, type JsonResponse } from '../support/http';

const withKey = (key: string) => ({ 'idempotency-key': key });

describe.each(backends)('Idempotency-Key on %s', (backend) => {
  const ctx = useApiFixture(backend);
  let n = 0;
  const freshKey = () => `key-${backend}-${++n}-${Math.random().toString(36).slice(2)}`;

  beforeAll(async () => {
    await createWebhook(ctx.db.prisma, ctx.api.secrets, {
      url: 'http://127.0.0.1:9/hook',
      entityType: 'product',
      direction: 'to_erp',
      secret: 'a-secret-of-16-chars',
      active: true,
    });
  });
  beforeEach(async () => {
    await ctx.db.prisma.outboundQueueItem.deleteMany();
    await ctx.db.prisma.syncFailure.deleteMany();
  });

  const counts = async () => ({
    failures: await ctx.db.prisma.syncFailure.count(),
    deliveries: await ctx.db.prisma.outboundQueueItem.count(),
  });

  it('replays the first answer to a retried failure report: same status and body, no second failure, no second delivery', async () => {
    const key = freshKey();
    const first = await ctx.api.request('POST', '/api/v1/failures', { body: report(), headers: withKey(key) });
    expect(first.status).toBe(201);
    expect(first.body).toEqual({ id: expect.any(Number), status: 'open', deliveries: 1 });
    expect(first.headers.get('idempotent-replayed')).toBeNull();

    const retry = await ctx.api.request('POST', '/api/v1/failures', { body: report(), headers: withKey(key) });
    expect(retry.status).toBe(201);
    expect(retry.text).toBe(first.text);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(retry.headers.get('content-type')).toMatch(/^application\/json/);
    expect(retry.headers.get('x-ratelimit-limit')).not.toBeNull();
    expect(await counts()).toEqual({ failures: 1, deliveries: 1 });
  });

  it('without a key, the same report sent twice is two failures (the duplicate the key prevents)', async () => {
    await ctx.api.request('POST', '/api/v1/failures', { body: report() });
    await ctx.api.request('POST', '/api/v1/failures', { body: report() });
    expect(await counts()).toEqual({ failures: 2, deliveries: 2 });
  });

  it('answers 422 naming the header when the key is reused with a different body, path or query, and applies nothing', async () => {
    const key = freshKey();
    expect((await ctx.api.request('POST', '/api/v1/failures', { body: report(), headers: withKey(key) })).status).toBe(201);
    const reuses: JsonResponse[] = [
      await ctx.api.request('POST', '/api/v1/failures', { body: report({ error_message: 'Another problem' }), headers: withKey(key) }),
      await ctx.api.request('POST', '/api/v1/products', { body: { external_id: 'SKU-9', name: 'Cup' }, headers: withKey(key) }),
      await ctx.api.request('POST', '/api/v1/failures?x=1', { body: report(), headers: withKey(key) }),
    ];
    for (const res of reuses) {
      expect(res.status).toBe(422);
      expect(res.body.error.code).toBe('IDEMPOTENCY_KEY_REUSED');
      expect(res.body.error.details).toEqual([{ field: 'Idempotency-Key', message: expect.any(String) }]);
    }
    expect(await counts()).toEqual({ failures: 1, deliveries: 1 });
    expect(await ctx.db.prisma.product.count({ where: { externalId: 'SKU-9' } })).toBe(0);
  });

  it('scopes keys per token: another token with the same key runs its own request', async () => {
    const key = freshKey();
    const { token: other } = await createToken(ctx.db.prisma, `other-${key}`);
    const mine = await ctx.api.request('POST', '/api/v1/failures', { body: report(), headers: withKey(key) });
    const theirs = await ctx.api.request('POST', '/api/v1/failures', { body: report(), headers: withKey(key), token: other });
    expect([mine.status, theirs.status]).toEqual([201, 201]);
    expect(theirs.headers.get('idempotent-replayed')).toBeNull();
    expect(theirs.body.id).not.toBe(mine.body.id);
    expect(await counts()).toEqual({ failures: 2, deliveries: 2 });
  });

  it('runs concurrent duplicates exactly once: the others wait for nothing and get 409 or the replay', async () => {
    const key = freshKey();
    const send = () => ctx.api.request('POST', '/api/v1/failures', { body: report({ external_id: 'RACE' }), headers: withKey(key) });
    const answers = await Promise.all(Array.from({ length: 8 }, send));
    const executed = answers.filter((a) => a.status === 201 && a.headers.get('idempotent-replayed') === null);
    const replayed = answers.filter((a) => a.status === 201 && a.headers.get('idempotent-replayed') === 'true');
    const busy = answers.filter((a) => a.status === 409);
    expect(executed).toHaveLength(1);
    expect(replayed.length + busy.length).toBe(answers.length - 1);
    for (const a of replayed) expect(a.text).toBe(executed[0]!.text);
    for (const a of busy) {
      expect(a.headers.get('retry-after')).toBe('1');
      expect(a.body.error).toMatchObject({ code: 'CONFLICT', details: [{ field: 'Idempotency-Key' }] });
    }
    expect(await counts()).toEqual({ failures: 1, deliveries: 1 });
    const later = await send();
    expect(later.headers.get('idempotent-replayed')).toBe('true');
    expect(later.text).toBe(executed[0]!.text);
  });

  it('replays an error answer as it was, and keeps the key bound to the request that earned it', async () => {
    const key = freshKey();
    const bad = report({ entity_type: 'invoice' });
    const first = await ctx.api.request('POST', '/api/v1/failures', { body: bad, headers: withKey(key) });
    expect(first.status).toBe(400);
    expect(first.body.error.details.map((d: { field: string }) => d.field)).toContain('entity_type');
    const again = await ctx.api.request('POST', '/api/v1/failures', { body: bad, headers: withKey(key) });
    expect(again.status).toBe(400);
    expect(again.text).toBe(first.text);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    const corrected = await ctx.api.request('POST', '/api/v1/failures', { body: report(), headers: withKey(key) });
    expect(corrected.status).toBe(422);
    expect(await counts()).toEqual({ failures: 0, deliveries: 0 });
  });

  it('replays a product sync and leaves no second change behind', async () => {
    const key = freshKey();
    const body = { external_id: 'IDEM-1', name: 'Espresso cup', price: 7.5 };
    const first = await ctx.api.request('POST', '/api/v1/products', { body, headers: withKey(key) });
    expect(first.status).toBe(200);
    const revision = (await ctx.db.prisma.product.findUniqueOrThrow({ where: { externalId: 'IDEM-1' } })).updatedAt;
    const retry = await ctx.api.request('POST', '/api/v1/products', { body, headers: withKey(key) });
    expect(retry.text).toBe(first.text);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect((await ctx.db.prisma.product.findUniqueOrThrow({ where: { externalId: 'IDEM-1' } })).updatedAt).toEqual(revision);
  });

  it.each([
    ['longer than 255 characters', 'k'.repeat(256), 'At most 255 characters'],
    ['not printable ASCII', 'caf\u00e9', 'Only printable ASCII characters (0x20 to 0x7E)'],
  ])('rejects a key %s with a 400 naming the header, applying nothing', async (_name, key, message) => {
    const res = await ctx.api.request('POST', '/api/v1/failures', { body: report(), headers: withKey(key) });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'VALIDATION_FAILED', details: [{ field: 'Idempotency-Key', message }] });
    expect(await counts()).toEqual({ failures: 0, deliveries: 0 });
  });

  it('accepts a key of exactly 255 printable characters', async () => {
    const key = `${'~ '.repeat(127)}x`;
    expect((await ctx.api.request('POST', '/api/v1/failures', { body: report(), headers: withKey(key) })).status).toBe(201);
    expect(
      (await ctx.api.request('POST', '/api/v1/failures', { body: report(), headers: withKey(key) })).headers.get('idempotent-replayed'),
    ).toBe('true');
  });

  it("answers 409 while the holder of a key lives, and runs the request again once a crashed holder's lease has run out", async () => {
    const key = freshKey();
    // What a process that claimed the key and then died leaves behind: a claim without an answer.
    const scope = scopeOfTestToken();
    const send = () => ctx.api.request('POST', '/api/v1/failures', { body: report({ external_id: 'CRASH' }), headers: withKey(key) });
    await send();
    await ctx.db.prisma.syncFailure.deleteMany();
    await ctx.db.prisma.outboundQueueItem.deleteMany();
    await ctx.db.prisma.idempotencyKey.update({
      where: { scope_key: { scope, key } },
      data: {
        leaseToken: 'dead-process',
        leaseExpiresAt: new Date(Date.now() + 60_000),
        responseStatus: null,
        responseBody: null,
        completedAt: null,
      },
    });
    const whileHeld = await send();
    expect(whileHeld.status).toBe(409);
    expect(await counts()).toEqual({ failures: 0, deliveries: 0 });

    await ctx.db.prisma.idempotencyKey.update({
      where: { scope_key: { scope, key } },
      data: { leaseExpiresAt: new Date(Date.now() - 1_000) },
    });
    const afterLease = await send();
    expect(afterLease.status).toBe(201);
    expect(afterLease.headers.get('idempotent-replayed')).toBeNull();
    expect(await counts()).toEqual({ failures: 1, deliveries: 1 });
    expect((await send()).text).toBe(afterLease.text);
  });

  it('answers the stored failure, and queues nothing again, when the process died after the report committed but before its answer was kept', async () => {
    const key = freshKey();
    const scope = scopeOfTestToken();
    const send = () => ctx.api.request('POST', '/api/v1/failures', { body: report({ external_id: 'LATE-CRASH' }), headers: withKey(key) });
    const first = await send();
    expect(first.status).toBe(201);
    // The failure and its delivery are committed; the answer was never stored and the lease ran out.
    await ctx.db.prisma.idempotencyKey.update({
      where: { scope_key: { scope, key } },
      data: {
        leaseToken: 'dead-process',
        leaseExpiresAt: new Date(Date.now() - 1_000),
        responseStatus: null,
        responseBody: null,
        completedAt: null,
      },
    });
    const rerun = await send();
    expect(rerun.status).toBe(201);
    expect(rerun.headers.get('idempotent-replayed')).toBeNull();
    expect(rerun.body).toEqual(first.body);
    expect(await counts()).toEqual({ failures: 1, deliveries: 1 });
  });

  it('forgets a key after 24 hours: the same key then runs a new request, and pruning deletes old keys only', async () => {
    const key = freshKey();
    const scope = scopeOfTestToken();
    await ctx.api.request('POST', '/api/v1/failures', { body: report(), headers: withKey(key) });
    const dayAgo = new Date(Date.now() - 24 * 3_600_000 - 60_000);
    await ctx.db.prisma.idempotencyKey.update({ where: { scope_key: { scope, key } }, data: { createdAt: dayAgo } });
    const reuse = await ctx.api.request('POST', '/api/v1/failures', {
      body: report({ error_message: 'A new one' }),
      headers: withKey(key),
    });
    expect(reuse.status).toBe(201);
    expect(await counts()).toEqual({ failures: 2, deliveries: 2 });

    const oldKey = freshKey();
    await ctx.api.request('POST', '/api/v1/failures', { body: report(), headers: withKey(oldKey) });
    await ctx.db.prisma.idempotencyKey.update({ where: { scope_key: { scope, key: oldKey } }, data: { createdAt: dayAgo } });
    const before = await ctx.db.prisma.idempotencyKey.count();
    expect(await pruneExpiredKeys(ctx.db.prisma)).toBe(1);
    expect(await ctx.db.prisma.idempotencyKey.count()).toBe(before - 1);
    expect(await ctx.db.prisma.idempotencyKey.findUnique({ where: { scope_key: { scope, key } } })).not.toBeNull();
  });

  it('lets a released claim (a 5xx answer is not kept) be claimed again', async () => {
    const id = { scope: 'test-scope', key: freshKey() };
    const first = await claimKey(ctx.db.prisma, id, 'fp', 30_000);
    expect(first.kind).toBe('claimed');
    expect((await claimKey(ctx.db.prisma, id, 'fp', 30_000)).kind).toBe('in-progress');
    expect((await claimKey(ctx.db.prisma, id, 'other', 30_000)).kind).toBe('mismatch');
    await releaseKey(ctx.db.prisma, id, first.kind === 'claimed' ? first.leaseToken : '');
    expect((await claimKey(ctx.db.prisma, id, 'fp', 30_000)).kind).toBe('claimed');
  });

  it('ignores the header on GET and on public routes', async () => {
    const before = await ctx.db.prisma.idempotencyKey.count();
    expect((await ctx.api.request('GET', '/api/v1/failures', { headers: withKey(freshKey()) })).status).toBe(200);
    const login = await ctx.api.request('POST', '/api/v1/auth/login', {
      body: { email: 'nobody@example.com', password: 'x' },
      token: null,
      headers: withKey(freshKey()),
    });
    expect(login.status).toBe(401);
    expect(await ctx.db.prisma.idempotencyKey.count()).toBe(before);
  });

  /** AuthInfo.key of the fixture's token, which scopes its keys. */
  const scopeOfTestToken = () => `token:${createHash('sha256').update(ctx.api.token).digest('hex').slice(0, 32)}`;
});
