import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { PrismaClient } from '../generated/prisma/client';
import { countPendingByTable } from '../changes/pending-counts';
import { registerTableGauges } from './table-metrics';
import { registerChannelGauges } from './channel-metrics';

/**
 * Prometheus metrics of one process. Counters are updated as things happen; queue and pending
 * gauges are read from the database when scraped, so every replica reports the shared state.
 */
export function createMetrics(prisma: PrismaClient) {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'sync_gateway_' });
  const labels = ['route', 'method', 'status'] as const;
  const requests = new Counter({
    name: 'sync_gateway_http_requests_total',
    help: 'HTTP requests by route template, method and status.',
    labelNames: labels,
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'sync_gateway_http_request_duration_seconds',
    help: 'HTTP request duration by route template, method and status.',
    labelNames: labels,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [registry],
  });
  const deliveries = new Counter({
    name: 'sync_gateway_webhook_delivery_attempts_total',
    help: 'Webhook delivery attempts by outcome (completed, retry, failed).',
    labelNames: ['outcome'],
    registers: [registry],
  });
  const rateLimited = new Counter({
    name: 'sync_gateway_rate_limit_rejections_total',
    help: 'Requests rejected by a rate limit, by kind (read or write).',
    labelNames: ['kind'],
    registers: [registry],
  });
  new Gauge({
    name: 'sync_gateway_queue_items',
    help: 'Outbound queue items by status.',
    labelNames: ['status'],
    registers: [registry],
    async collect() {
      const rows = await prisma.outboundQueueItem.groupBy({ by: ['status'], _count: { _all: true } });
      this.reset();
      for (const status of ['pending', 'processing', 'completed', 'failed']) {
        this.set({ status }, rows.find((r) => r.status === status)?._count._all ?? 0);
      }
    },
  });
  new Gauge({
    name: 'sync_gateway_pending_changes',
    help: 'Records with unacknowledged changes, by entity.',
    labelNames: ['entity'],
    registers: [registry],
    async collect() {
      const counts = await countPendingByTable(prisma);
      for (const [entity, n] of Object.entries(counts)) this.set({ entity }, n);
    },
  });
  registerChannelGauges(registry, prisma);
  registerTableGauges(registry, prisma);
  return {
    registry,
    observeRequest(route: string, method: string, status: number, seconds: number) {
      const l = { route, method, status: String(status) };
      requests.inc(l);
      duration.observe(l, seconds);
    },
    deliveryAttempt: (outcome: 'completed' | 'retry' | 'failed') => deliveries.inc({ outcome }),
    rateLimitRejected: (kind: 'read' | 'write') => rateLimited.inc({ kind }),
  };
}

export type Metrics = ReturnType<typeof createMetrics>;
