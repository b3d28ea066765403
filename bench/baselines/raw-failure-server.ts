/**
 * The failure-report baseline (issue 18): the hand-written equivalent of `POST /api/v1/failures`
 * and the webhook worker, in one process over pg and undici. A report is one statement (the
 * failure and one queue item per matching active configuration, as the service's); a pipelined
 * worker claims due items FOR UPDATE SKIP LOCKED under a lease (up to 64 in flight, freed slots
 * claimed at once, woken by each report), POSTs each signed (X-Webhook-Signature and the Standard
 * Webhooks headers) over keep-alive connections and writes the results in batches with their
 * attempt-log rows, guarded by the lease token. Left out, as a hand-written one would: endpoint
 * health, lease renewal (deliveries take milliseconds), Idempotency-Key, the SSRF guard.
 * Configurations are rows of webhook_configs whose secret_encrypted holds the plain `whsec_` secret.
 * `node --import tsx raw-failure-server.ts <databaseUrl>` prints its URL; the bearer token is `baseline`.
 */
import { createHmac, randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Pool } from 'pg';
import { Agent, request } from 'undici';

const pool = new Pool({ connectionString: process.argv[2], max: 10 });
/** The worker's own connections, as the service's (WORKER_DATABASE_POOL_SIZE): claims never queue behind 100 reports. */
const workerPool = new Pool({ connectionString: process.argv[2], max: 4 });
const agent = new Agent({ keepAliveTimeout: 30_000, connections: 128, headersTimeout: 15_000, bodyTimeout: 15_000 });
const CONCURRENCY = 64;
const BATCH = 64;
const LEASE_MS = 10_000;
const BACKOFF_MS = [60_000, 300_000, 1_800_000, 7_200_000, 28_800_000];
const ENTITY_TYPES = new Set(['product', 'partner', 'sale_order', 'purchase_order', 'stock', 'pricelist']);

const REPORT = `WITH failure AS (
    INSERT INTO sync_failures (entity_type, source, external_id, error_message, error_details)
    VALUES ($1, $2, $3, $4, $5::jsonb)
    RETURNING id, entity_type, source, external_id, error_message, error_details, created_at
  ), queued AS (
    INSERT INTO outbound_queue_items (status, message_id, event, payload, webhook_config_id, failure_id)
    SELECT 'pending', 'msg_' || replace(gen_random_uuid()::text, '-', ''), 'sync_failure',
           jsonb_build_object('event', 'sync_failure', 'entity_type', f.entity_type, 'external_id', f.external_id,
                              'source', f.source, 'error_message', f.error_message, 'error_details', f.error_details,
                              'failed_at', to_char(f.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')),
           c.id, f.id
      FROM failure f JOIN webhook_configs c ON c.active AND c.entity_type = f.entity_type AND c.direction = $6
     RETURNING id
  )
  SELECT failure.id, (SELECT count(*)::int FROM queued) AS deliveries FROM failure`;

const CLAIM = `UPDATE outbound_queue_items AS q
    SET status = 'processing', lease_token = $2, lease_expires_at = $1::timestamptz + interval '${LEASE_MS} milliseconds',
        attempts = q.attempts + 1, updated_at = $1::timestamptz
   FROM (SELECT o.id, c.url, c.secret_encrypted
           FROM outbound_queue_items o JOIN webhook_configs c ON c.id = o.webhook_config_id
          WHERE ((o.status = 'pending' AND o.next_attempt_at <= $1::timestamptz)
             OR (o.status = 'processing' AND o.lease_expires_at < $1::timestamptz))
          ORDER BY o.next_attempt_at, o.id LIMIT $3
          FOR UPDATE OF o SKIP LOCKED) AS due
  WHERE q.id = due.id
  RETURNING q.id, q.attempts, q.max_attempts, q.message_id, q.payload, due.url, due.secret_encrypted`;

const RECORD = `WITH v AS (
    SELECT * FROM jsonb_to_recordset($1::jsonb) AS v(id int, lease_token text, status queue_status, at timestamptz,
      status_code int, error text, next_attempt_at timestamptz, attempt int, started_at timestamptz, duration_ms int, outcome text)
  ), written AS (
    UPDATE outbound_queue_items AS q SET status = v.status, lease_token = NULL, lease_expires_at = NULL, updated_at = v.at,
           last_status_code = v.status_code, last_error = v.error,
           completed_at = CASE WHEN v.status = 'completed' THEN v.at ELSE q.completed_at END,
           next_attempt_at = COALESCE(v.next_attempt_at, q.next_attempt_at)
      FROM v WHERE q.id = v.id AND q.lease_token = v.lease_token AND q.status = 'processing'
     RETURNING q.id
  )
  INSERT INTO delivery_attempts (item_id, attempt, started_at, duration_ms, outcome, status_code, error)
  SELECT v.id, v.attempt, v.started_at, v.duration_ms, v.outcome, v.status_code, v.error FROM v JOIN written ON written.id = v.id`;

type Item = {
  id: number;
  attempts: number;
  max_attempts: number;
  message_id: string;
  payload: Record<string, unknown>;
  url: string;
  secret_encrypted: string;
};

function sign(secret: string, messageId: string, body: string): Record<string, string> {
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const timestamp = Math.floor(Date.now() / 1000);
  return {
    'content-type': 'application/json',
    'x-webhook-signature': createHmac('sha256', key).update(body).digest('hex'),
    'webhook-id': messageId,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': `v1,${createHmac('sha256', key).update(`${messageId}.${timestamp}.${body}`).digest('base64')}`,
  };
}

let inFlight = 0;
let wakeUp: (() => void) | undefined;
let signalled = false;
const wake = () => {
  signalled = true;
  wakeUp?.();
};
const results: object[] = [];
let writing = false;

async function writeResults(): Promise<void> {
  if (writing) return;
  writing = true;
  while (results.length > 0) await workerPool.query(RECORD, [JSON.stringify(results.splice(0, results.length))]);
  writing = false;
}

async function deliver(item: Item, token: string): Promise<void> {
  const started = new Date();
  const { event, entity_type, external_id, source, error_message, error_details, failed_at } = item.payload;
  const body = JSON.stringify({ event, entity_type, external_id, source, error_message, error_details, failed_at });
  let statusCode: number | null = null;
  let error: string | null = null;
  try {
    const res = await request(item.url, {
      method: 'POST',
      dispatcher: agent,
      headers: sign(item.secret_encrypted, item.message_id, body),
      body,
    });
    await res.body.dump();
    statusCode = res.statusCode;
    if (statusCode < 200 || statusCode >= 300) error = `HTTP ${statusCode}`;
  } catch {
    error = 'connection failed';
  }
  const at = new Date();
  const retry = error !== null && item.attempts < item.max_attempts;
  results.push({
    id: item.id,
    lease_token: token,
    status: error === null ? 'completed' : retry ? 'pending' : 'failed',
    at,
    status_code: statusCode,
    error,
    next_attempt_at: retry ? new Date(at.getTime() + BACKOFF_MS[item.attempts - 1]!) : null,
    attempt: item.attempts,
    started_at: started,
    duration_ms: at.getTime() - started.getTime(),
    outcome: error === null ? 'success' : statusCode === null ? 'network_error' : 'http_error',
  });
  void writeResults().catch((e: unknown) => console.error(e));
}

async function work(): Promise<void> {
  for (;;) {
    signalled = false;
    let claimed = 0;
    if (inFlight < CONCURRENCY) {
      const token = randomUUID();
      const { rows } = await workerPool.query<Item>(CLAIM, [new Date(), token, Math.min(BATCH, CONCURRENCY - inFlight)]);
      claimed = rows.length;
      for (const item of rows) {
        inFlight++;
        void deliver(item, token).finally(() => {
          inFlight--;
          if (inFlight === CONCURRENCY - 1) wake();
        });
      }
    }
    if ((claimed === 0 || inFlight >= CONCURRENCY) && !signalled) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, 1_000);
        wakeUp = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      wakeUp = undefined;
    }
  }
}

function refusal(body: Record<string, unknown>): string | undefined {
  if (typeof body.entity_type !== 'string' || !ENTITY_TYPES.has(body.entity_type)) return 'entity_type';
  if (body.source !== 'erp' && body.source !== 'webshop') return 'source';
  if (body.external_id !== undefined && typeof body.external_id !== 'string') return 'external_id';
  if (typeof body.error_message !== 'string' || body.error_message === '') return 'error_message';
  if (body.error_details !== undefined && !Array.isArray(body.error_details)) return 'error_details';
  return undefined;
}

const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    void (async () => {
      res.setHeader('content-type', 'application/json');
      if (req.method !== 'POST' || req.url !== '/api/v1/failures' || req.headers.authorization !== 'Bearer baseline') {
        res.statusCode = 404;
        res.end('{"error":"not found"}');
        return;
      }
      try {
        const body = JSON.parse(Buffer.concat(chunks).toString()) as Record<string, unknown>;
        const field = refusal(body);
        if (field) {
          res.statusCode = 400;
          res.end(JSON.stringify({ error: 'VALIDATION_FAILED', details: [{ field }] }));
          return;
        }
        const { rows } = await pool.query<{ id: number; deliveries: number }>(REPORT, [
          body.entity_type,
          body.source,
          body.external_id ?? null,
          body.error_message,
          JSON.stringify(body.error_details ?? []),
          body.source === 'erp' ? 'to_webshop' : 'to_erp',
        ]);
        if (rows[0]!.deliveries > 0) wake();
        res.statusCode = 201;
        res.end(JSON.stringify({ id: rows[0]!.id, status: 'open', deliveries: rows[0]!.deliveries }));
      } catch (error) {
        res.statusCode = 500;
        res.end(JSON.stringify({ error: String(error) }));
      }
    })();
  });
});

server.listen(0, '127.0.0.1', () => {
  console.log(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
  work().catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
});
