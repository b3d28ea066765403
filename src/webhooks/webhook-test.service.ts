import { randomUUID } from 'node:crypto';
import type { PrismaClient } from '../generated/prisma/client';
import { attemptDelivery, signatureHeaders } from '../deliveries/delivery';
import { findWebhook } from './webhook.service';
import type { SecretBox } from '../deliveries/secret-box';

export const TEST_EVENT = 'webhook.test';
/** Enough of the receiver's answer to see what it said, not a channel to read internal pages. */
export const TEST_RESPONSE_EXCERPT_BYTES = 512;

export type WebhookTestResult = {
  webhookId: number;
  messageId: string;
  /** delivered (2xx), failed (an HTTP error or a connection problem) or blocked (the SSRF guard). */
  outcome: 'delivered' | 'failed' | 'blocked';
  statusCode: number | null;
  durationMs: number;
  error: string | null;
  responseBodyExcerpt: string | null;
  /** The exact body that was signed and sent. */
  body: string;
};

/**
 * Sends a signed `webhook.test` event to a configuration now, through the delivery code of the
 * queue (same signing, same SSRF guard, same connection pool), and answers the attempt. Nothing is
 * queued or retried and nothing counts toward delivery metrics. Inactive configurations can be
 * tested too, so a receiver can be checked before deliveries are switched on.
 */
export async function sendTestEvent(prisma: PrismaClient, box: SecretBox, id: number, now: Date = new Date()): Promise<WebhookTestResult> {
  const config = await findWebhook(prisma, id);
  const messageId = `msg_${randomUUID().replaceAll('-', '')}`;
  const body = JSON.stringify({
    event: TEST_EVENT,
    webhook_id: config.id,
    entity_type: config.entityType,
    direction: config.direction,
    sent_at: now.toISOString(),
  });
  const headers = signatureHeaders(box.decrypt(config.secretEncrypted), messageId, Math.floor(now.getTime() / 1000), body);
  const attempt = await attemptDelivery(config.url, body, headers, { excerptBytes: TEST_RESPONSE_EXCERPT_BYTES });
  return {
    webhookId: config.id,
    messageId,
    outcome: attempt.ok ? 'delivered' : attempt.blocked ? 'blocked' : 'failed',
    statusCode: attempt.statusCode ?? null,
    durationMs: attempt.durationMs,
    error: attempt.ok ? null : attempt.error,
    responseBodyExcerpt: attempt.bodyExcerpt ?? null,
    body,
  };
}
