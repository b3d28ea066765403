import pino from 'pino';
import { createMetrics } from '../../src/ops/metrics';
import { createReadiness } from '../../src/ops/readiness';
import { createWorker } from '../../src/queue/worker';
import { createWebhook } from '../../src/webhooks/webhook.service';
import { backends } from '../support/database';
import { useApiFixture } from '../support/http';
import { startReceiver } from '../support/receiver';

describe.each(backends)('operations endpoints on %s', (backend) => {
  const ctx = useApiFixture(backend);

  it('GET /ready is public and reports the database, the migrations and the worker', async () => {
    const res = await ctx.api.request('GET', '/ready', { token: null });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'ready', checks: { database: 'ok', migrations: 'ok', worker: 'disabled' } });

    const stalled = createReadiness({ prisma: ctx.db.prisma, worker: { lastClaimAt: () => undefined, pollIntervalMs: 1000 } });
    expect(await stalled()).toEqual({ ready: false, checks: { database: 'ok', migrations: 'ok', worker: 'not running' } });

    const broken = new Proxy(ctx.db.prisma, {
      get: (target, prop) =>
        prop === '$queryRaw' || prop === '$queryRawUnsafe'
          ? () =>
              Promise.reject(
                Object.assign(new Error('connect ECONNREFUSED 10.1.2.3:5432'), { code: 'ECONNREFUSED', syscall: 'connect', errno: -111 }),
              )
          : Reflect.get(target, prop),
    });
    const down = await createReadiness({ prisma: broken })();
    expect(down.ready).toBe(false);
    // The cause is named; the host is not.
    expect(down.checks.database).toBe('unreachable: ECONNREFUSED: connection failure (ECONNREFUSED)');

    const failing = createReadiness({
      prisma: ctx.db.prisma,
      worker: {
        lastClaimAt: () => Date.now() - 60_000,
        lastClaimError: () => 'P1001: cannot reach the database server',
        pollIntervalMs: 1000,
      },
      redis: { status: () => 'degraded: not connected (sync-gateway:rate-limit)' },
    });
    expect(await failing()).toEqual({
      ready: false,
      checks: {
        database: 'ok',
        migrations: 'ok',
        worker: 'failing: no successful claim for 60 s (P1001: cannot reach the database server)',
        redis: 'degraded: not connected (sync-gateway:rate-limit)',
      },
    });
    // Redis alone down: degraded, still ready (the service serves from memory).
    const degraded = createReadiness({ prisma: ctx.db.prisma, redis: { status: () => 'degraded: not connected' } });
    expect((await degraded()).ready).toBe(true);
  });

  it('GET /metrics needs a token and reports requests, queue, pending changes and rate-limit rejections', async () => {
    await ctx.api.request('POST', '/api/v1/products', { body: { products: [{ external_id: 'M-1' }, { external_id: 'M-2' }] } });
    await ctx.api.request('GET', '/api/v1/updated-products');
    await ctx.api.request('DELETE', '/api/v1/updated-products/987654');
    expect((await ctx.api.request('GET', '/metrics', { token: null })).status).toBe(401);

    const res = await ctx.api.request('GET', '/metrics');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
    const text = res.text;
    expect(text).toMatch(/sync_gateway_http_requests_total\{route="\/api\/v1\/updated-products",method="GET",status="200"\} 1/);
    expect(text).toMatch(/sync_gateway_http_requests_total\{route="\/api\/v1\/updated-products\/:id",method="DELETE",status="404"\} 1/);
    expect(text).toMatch(
      /sync_gateway_http_request_duration_seconds_bucket\{le="0.005",route="\/api\/v1\/products",method="POST",status="200"\}/,
    );
    expect(text).toMatch(/sync_gateway_pending_changes\{entity="products"\} 2/);
    expect(text).toMatch(/sync_gateway_queue_items\{status="pending"\} 0/);
    expect(text).toMatch(/# TYPE sync_gateway_rate_limit_rejections_total counter/);
    // Per channel (issue 31): default here, the only channel of this store.
    expect(text).toMatch(/sync_gateway_channel_pending_changes\{channel="default",entity_type="product"\} 2/);
    expect(text).toMatch(/sync_gateway_channel_oldest_pending_age_seconds\{channel="default",entity_type="product"\} \d/);
    expect(text).toMatch(/sync_gateway_channel_oldest_pending_age_seconds\{channel="default",entity_type="stock"\} 0\n/);
    expect(text).toMatch(/sync_gateway_process_resident_memory_bytes/);
  });

  it('counts webhook delivery attempts by outcome', async () => {
    const metrics = createMetrics(ctx.db.prisma);
    const receiver = await startReceiver(() => ({ status: 200 }));
    try {
      await createWebhook(ctx.db.prisma, ctx.api.secrets, {
        url: receiver.url,
        entityType: 'product',
        direction: 'to_webshop',
        secret: 'metrics-secret-12345',
      });
      await ctx.api.request('POST', '/api/v1/failures', {
        body: { entity_type: 'product', external_id: 'M-1', source: 'erp', error_message: 'x' },
      });
      const worker = createWorker({
        database: ctx.db.prisma,
        secrets: ctx.api.secrets,
        logger: pino({ level: 'silent' }),
        onAttempt: metrics.deliveryAttempt,
      });
      expect(await worker.runOnce()).toBe(1);
      expect(await metrics.registry.metrics()).toMatch(/sync_gateway_webhook_delivery_attempts_total\{outcome="completed"\} 1/);
    } finally {
      await receiver.close();
    }
  });
});
