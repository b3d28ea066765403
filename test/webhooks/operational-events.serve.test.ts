import { createPostgresDatabase } from '../support/database';
import { postgresEnv, runCli, serveProcess, type ServeProcess } from '../support/process';
import { startReceiver } from '../support/receiver';
import { openSse } from '../support/sse';
import { waitForValue } from '../support/wait-for';

/**
 * `sync-gateway serve` runs the worker on a thread of its own: its operational events must cross
 * to the main thread's event hub to reach a subscriber. Once per run, the process on a database of
 * its own on the embedded test cluster (DATABASE_URL over its socket).
 */
const TIMEOUT_MS = 300_000;

describe('operational events from the worker thread of serve', () => {
  let database: { url: string; drop(): Promise<void> };
  let serve: ServeProcess;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let integration: string;
  let admin: string;

  beforeAll(async () => {
    database = await createPostgresDatabase('embedded');
    receiver = await startReceiver(() => ({ status: 410 }));
    const env = postgresEnv(database.url, { REDIS_URL: '', WEBHOOK_ALLOWED_NETWORKS: '127.0.0.1/32' });
    expect((await runCli(env, ['migrate'])).code).toBe(0);
    const lastLine = (out: string) => out.trim().split('\n').pop()!;
    integration = lastLine((await runCli(env, ['token', 'create', '--name', 'erp'])).stdout);
    admin = lastLine((await runCli(env, ['token', 'create', '--name', 'ops', '--role', 'admin'])).stdout);
    serve = await serveProcess(env);
  }, TIMEOUT_MS);

  afterAll(async () => {
    await serve?.stop();
    await receiver?.close();
    await database?.drop();
  }, TIMEOUT_MS);

  const graphql = (token: string, query: string) =>
    fetch(`${serve.url}/graphql`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ query }),
    });

  it(
    'streams delivery.failed to an admin and shows the health on the configuration',
    async () => {
      const created = await graphql(
        admin,
        `mutation { createWebhookConfig(url: "${receiver.url}", entityType: product, direction: to_webshop) { id } }`,
      );
      const { id } = ((await created.json()) as { data: { createWebhookConfig: { id: number } } }).data.createWebhookConfig;
      // Open (200) means subscribed: without Redis the server's hub has the subscription before it answers.
      const stream = await openSse(serve.url, admin, 'subscription { operationalEvents { name webhookId statusCode } }');
      const reported = await fetch(`${serve.url}/api/v1/failures`, {
        method: 'POST',
        headers: { authorization: `Bearer ${integration}`, 'content-type': 'application/json' },
        body: JSON.stringify({ entity_type: 'product', external_id: 'SKU-410', source: 'erp', error_message: 'x' }),
      });
      expect(reported.status).toBe(201);
      expect(await waitForValue(() => stream.events[0], 60_000, 'delivery.failed')).toEqual({
        data: { operationalEvents: { name: 'delivery.failed', webhookId: id, statusCode: 410 } },
      });
      await stream.close();

      const listed = await fetch(`${serve.url}/api/v1/webhooks/${id}`, { headers: { authorization: `Bearer ${admin}` } });
      expect(await listed.json()).toMatchObject({ id, health: { state: 'failing', consecutiveFailedItems: 1 } });
    },
    TIMEOUT_MS,
  );
});
