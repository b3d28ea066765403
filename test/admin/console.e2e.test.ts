/**
 * The admin console end to end: the built page (dist/console) served by the real application,
 * driven in Debian's Chromium by playwright-core. Sign in, see a failure arrive live, resolve it,
 * retry a queue item, read a delivery's attempts, resend it, recover a window, see a failure's
 * deliveries, create and revoke a token, create a channel, bind a token to it and delete it. With
 * CONSOLE_SCREENSHOTS=<dir> it also saves screenshots of the main views (docs/console/ holds the
 * committed ones).
 */
import { type Browser, type Page } from 'playwright-core';
import { createAdminAccount } from '../../src/accounts/account.service';
import pino from 'pino';
import { createWorker } from '../../src/queue/worker';
import { decodeKeyring } from '../../src/deliveries/signing-keys';
import { createWebhook } from '../../src/webhooks/webhook.service';
import { openConsolePage, requireConsoleAndChromium, screenshot } from '../support/browser';
import { startReceiver, type Reply } from '../support/receiver';
import { openTestDatabase, type TestDatabase } from '../support/database';
import { startTestServer, type TestServer } from '../support/http';
import { waitForValue } from '../support/wait-for';

const ADMIN = { email: 'ops@example.com', password: 'correct horse battery staple' };
const NEW_PASSWORD = 'a brand new passphrase';

jest.setTimeout(120_000);

describe('admin console in Chromium', () => {
  let db: TestDatabase;
  let api: TestServer;
  let browser: Browser;
  let page: Page;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  const resetMails: Array<{ email: string; token: string }> = [];

  beforeAll(async () => {
    requireConsoleAndChromium();
    db = await openTestDatabase('embedded');
    // A receiver that is gone for sync_failure events and answers test events.
    receiver = await startReceiver((request) =>
      request.body.includes('"webhook.test"')
        ? { status: 200, headers: { 'content-type': 'application/json' }, body: '{"received":true}' }
        : { status: 410 },
    );
    api = await startTestServer(db, {
      accounts: { registration: 'approval', mailer: { sendPasswordReset: async (email, token) => void resetMails.push({ email, token }) } },
    });
    await createAdminAccount(db.prisma, ADMIN);
    // Deliveries to this configuration go nowhere; no worker runs in the test server anyway.
    await createWebhook(db.prisma, api.secrets, {
      url: 'http://127.0.0.1:9/hook',
      entityType: 'product',
      direction: 'to_erp',
      secret: 'whsec-e2e-0123456789',
    });
    const synced = await api.request('POST', '/api/v1/products', {
      body: { products: ['SKU-1', 'SKU-2', 'SKU-3'].map((external_id) => ({ external_id, name: `Product ${external_id}` })) },
    });
    expect(synced.status).toBe(200);
    ({ browser, page } = await openConsolePage());
    page.on('dialog', (dialog) => void dialog.accept());
  });

  afterAll(async () => {
    await browser?.close();
    await receiver?.close();
    await api?.close();
    await db?.close();
  });

  /** The UI has answered once the row is in the database. */
  const waitForRow = <T>(find: () => Promise<T | null>): Promise<T> => waitForValue(find, 30_000, 'the row');

  const shot = (name: string) => screenshot(page, name);

  it('refuses a wrong password, then signs in', async () => {
    await page.goto(`${api.url}/admin/`);
    await shot('sign-in');
    await page.getByLabel('Email').fill(ADMIN.email);
    await page.getByLabel('Password').fill('not the password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('alert').filter({ hasText: 'Invalid email or password' }).waitFor();
    await page.getByLabel('Password').fill(ADMIN.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Pending changes' }).waitFor();
    expect(await page.locator('header .who').textContent()).toContain(ADMIN.email);
    await page.getByTestId('pending-products').filter({ hasText: '3' }).waitFor();
  });

  it('shows a failure the moment it is reported, then resolves it', async () => {
    // The live feed's SSE stream is open once its response has started.
    const stream = page.waitForResponse(
      (r) => r.url().endsWith('/graphql') && (r.headers()['content-type'] ?? '').startsWith('text/event-stream'),
    );
    await page.reload();
    await stream;
    await page.waitForTimeout(300);

    const reported = await api.request('POST', '/api/v1/failures', {
      body: {
        entity_type: 'product',
        source: 'webshop',
        external_id: 'SKU-4711',
        error_message: 'Price must not be negative',
        error_details: [{ field: 'price', message: 'must be >= 0' }],
        raw_data: { external_id: 'SKU-4711', price: -3, tags: ['sale'] },
      },
    });
    expect(reported.status).toBe(201);
    const id: number = reported.body.id;

    const item = page.locator(`.live-feed li[data-failure-id="${id}"]`);
    await item.waitFor({ timeout: 10_000 });
    expect(await item.textContent()).toContain('Price must not be negative');
    await page.getByTestId('open-product-webshop').filter({ hasText: '1' }).waitFor();
    await shot('overview');

    await item.getByRole('link').click();
    await page.getByRole('heading', { name: `Failure #${id}` }).waitFor();
    // raw_data pretty-printed (PostgreSQL's jsonb keeps its own key order)
    const raw = (await page.locator('pre.raw').textContent())!;
    expect(JSON.parse(raw)).toEqual({ external_id: 'SKU-4711', price: -3, tags: ['sale'] });
    expect(raw).toContain('\n  "price": -3');
    await shot('failure-detail');
    await page.getByLabel('Note').fill('Fixed the price in the ERP');
    await page.getByRole('button', { name: 'Resolve' }).click();
    await page.locator('h2 .badge.resolved').waitFor();
    expect(await page.locator('.facts').textContent()).toContain('Fixed the price in the ERP');

    const stored = await db.prisma.syncFailure.findUniqueOrThrow({ where: { id } });
    expect(stored).toMatchObject({ status: 'resolved', resolvedBy: ADMIN.email, resolutionNote: 'Fixed the price in the ERP' });

    await page.getByRole('link', { name: 'Failures' }).first().click();
    await page.getByLabel('Status').selectOption('all');
    await page.locator(`tr[data-failure-id="${id}"] .badge.resolved`).waitFor();
    await shot('failures');
  });

  it('retries a failed queue item', async () => {
    // What the worker does when a delivery has used up its attempts.
    const queued = await db.prisma.outboundQueueItem.findFirstOrThrow({ orderBy: { id: 'desc' } });
    await db.prisma.outboundQueueItem.update({
      where: { id: queued.id },
      data: { status: 'failed', attempts: queued.maxAttempts, lastStatusCode: 503, lastError: 'Service Unavailable' },
    });
    await page.getByRole('link', { name: 'Queue' }).click();
    await page.getByLabel('Status').selectOption('failed');
    const row = page.locator(`tr[data-queue-id="${queued.id}"]`);
    await row.waitFor();
    expect(await row.textContent()).toContain('HTTP 503');
    await shot('queue');
    await row.getByRole('button', { name: 'Retry' }).click();
    await page
      .getByRole('status')
      .filter({ hasText: `Item #${queued.id} put back in the queue` })
      .waitFor();
    const retried = await db.prisma.outboundQueueItem.findUniqueOrThrow({ where: { id: queued.id } });
    expect(retried).toMatchObject({ status: 'pending', attempts: 0 });
  });

  it('shows webhook health and operational events live, tests an endpoint and rotates its secret', async () => {
    const config = await createWebhook(db.prisma, api.secrets, {
      url: receiver.url,
      entityType: 'partner',
      direction: 'to_webshop',
      secret: 'whsec-health-0123456789',
    });
    // The live panel's SSE stream is open once its response has started.
    const stream = page.waitForResponse(
      (r) => r.url().endsWith('/graphql') && (r.headers()['content-type'] ?? '').startsWith('text/event-stream'),
    );
    await page.getByRole('link', { name: 'Webhooks' }).click();
    await stream;
    const row = page.locator(`tr[data-webhook-id="${config.id}"]`);
    await row.locator('.badge.health.healthy').waitFor();
    await page.waitForTimeout(300);

    // A delivery the receiver refuses with 410 is abandoned: the worker (as `serve` wires it) tells the console.
    await api.request('POST', '/api/v1/failures', {
      body: { entity_type: 'partner', source: 'erp', external_id: 'P-410', error_message: 'Unknown country' },
    });
    const worker = createWorker({
      database: db.prisma,
      secrets: api.secrets,
      logger: pino({ level: 'silent' }),
      clock: () => new Date(Date.now() + 1_000),
      onOperationalEvents: (events) => events.forEach(api.events.publishOperational),
    });
    // (The item the queue test put back is due too: it goes to the first configuration.)
    expect(await worker.runOnce()).toBeGreaterThanOrEqual(1);
    const event = page.locator('.operational-feed li[data-event="delivery.failed"]');
    await event.waitFor({ timeout: 10_000 });
    expect(await event.textContent()).toContain('HTTP 410');
    // The event refreshed the list: the configuration is failing now.
    await row.locator('.badge.health.failing').waitFor();
    expect(await row.textContent()).toContain('1 abandoned');
    await shot('webhooks-health');

    await row.getByRole('button', { name: 'Test' }).click();
    const result = page.getByTestId('test-result');
    await result.waitFor();
    expect(await result.textContent()).toMatch(/delivered · HTTP 200 · \d+ ms/);
    expect(await result.locator('pre.excerpt').textContent()).toBe('{"received":true}');
    // A test event does not count toward health.
    await page.reload();
    await row.locator('.badge.health.failing').waitFor();

    const before = await db.prisma.webhookConfig.findUniqueOrThrow({ where: { id: config.id } });
    await row.getByRole('button', { name: 'Rotate secret' }).click();
    await page.getByLabel('Grace period').selectOption('1 hour');
    await page.getByRole('button', { name: 'Rotate now' }).click();
    const secret = (await page.getByTestId('new-webhook-secret').textContent())!.trim();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
    const keyring = decodeKeyring(
      api.secrets.decrypt((await db.prisma.webhookConfig.findUniqueOrThrow({ where: { id: config.id } })).secretEncrypted),
    );
    expect(keyring.keys.map((k) => k.secret)).toEqual([secret, api.secrets.decrypt(before.secretEncrypted)]);
    expect(keyring.keys[1]!.expiresAt! - Date.now() / 1000).toBeGreaterThan(3_500);
    await shot('webhooks-rotated');
    // Shown once.
    await page.reload();
    await row.waitFor();
    expect(await page.content()).not.toContain(secret);
  });

  it("shows a delivery's attempts and payload, resends it, lists a failure's deliveries and recovers a window", async () => {
    // A receiver that is busy once (500 with Retry-After), then takes everything.
    const flaky = await startReceiver((_request, index): Reply =>
      index === 0
        ? { status: 500, headers: { 'content-type': 'application/json', 'retry-after': '30' }, body: '{"error":"busy"}' }
        : { status: 200, headers: { 'content-type': 'application/json' }, body: '{"received":true}' },
    );
    try {
      await createWebhook(db.prisma, api.secrets, {
        url: flaky.url,
        entityType: 'sale_order',
        direction: 'to_webshop',
        secret: 'whsec-flaky-0123456789',
      });
      const reported = await api.request('POST', '/api/v1/failures', {
        body: { entity_type: 'sale_order', source: 'erp', external_id: 'SO-500', error_message: 'Unknown payment term' },
      });
      expect(reported.body).toMatchObject({ deliveries: 1 });
      const failureId: number = reported.body.id;
      const item = await db.prisma.outboundQueueItem.findFirstOrThrow({ where: { failureId } });
      // Walk the schedule with an injected clock: attempt 1 at once (500), attempt 2 after the minute (200).
      let clock = Date.now() + 1_000;
      const worker = createWorker({
        database: db.prisma,
        secrets: api.secrets,
        logger: pino({ level: 'silent' }),
        clock: () => new Date(clock),
      });
      await worker.runOnce();
      clock += 120_000;
      await worker.runOnce();
      expect(await db.prisma.outboundQueueItem.findUniqueOrThrow({ where: { id: item.id } })).toMatchObject({
        status: 'completed',
        attempts: 2,
      });

      // The queue lists the configuration's URL; the item shows both attempts, newest first.
      await page.getByRole('link', { name: 'Queue', exact: true }).click();
      await page.getByLabel('Status').selectOption('completed');
      const row = page.locator(`tr[data-queue-id="${item.id}"]`);
      await row.filter({ hasText: flaky.url }).waitFor();
      await shot('queue-urls');
      await row.locator(`a[href="/admin/queue/${item.id}"]`).click();
      await page.getByRole('heading', { name: `Queue item #${item.id}` }).waitFor();
      // (The URL comes from the configurations, a query of its own.)
      await page.getByTestId('queue-item-url').filter({ hasText: flaky.url }).waitFor();
      const attempts = page.locator('table.attempts tr.attempt');
      expect(await attempts.count()).toBe(2);
      const [second, first] = [attempts.nth(0), attempts.nth(1)];
      expect(await second.getAttribute('data-outcome')).toBe('success');
      expect(await second.locator('td.status-code').textContent()).toBe('200');
      expect(await second.locator('pre.excerpt').textContent()).toBe('{"received":true}');
      expect(await first.getAttribute('data-outcome')).toBe('http_error');
      expect(await first.locator('td.status-code').textContent()).toBe('500');
      expect(await first.locator('td').nth(5).textContent()).toBe('30');
      expect(await first.locator('pre.excerpt').textContent()).toBe('{"error":"busy"}');
      expect(await first.textContent()).toMatch(/\d+ ms/);
      const payload = (await page.locator('pre.payload').textContent())!;
      expect(JSON.parse(payload)).toMatchObject({ event: 'sync_failure', entity_type: 'sale_order', external_id: 'SO-500' });
      expect(payload).toContain('\n  "external_id": "SO-500"');
      await shot('queue-item');

      // Resend: the same webhook-id again, and a third attempt in the log.
      expect(await page.locator('p.actions').textContent()).toContain('same webhook-id');
      await page.getByRole('button', { name: 'Resend' }).click();
      await page
        .getByRole('status')
        .filter({ hasText: `Item #${item.id} queued again with the same webhook-id` })
        .waitFor();
      expect(await db.prisma.outboundQueueItem.findUniqueOrThrow({ where: { id: item.id } })).toMatchObject({
        status: 'pending',
        attempts: 0,
        messageId: item.messageId,
      });
      await worker.runOnce();
      expect(flaky.requests).toHaveLength(3);
      expect(flaky.requests[2]!.headers['webhook-id']).toBe(item.messageId);
      expect(flaky.requests[0]!.headers['webhook-id']).toBe(item.messageId);
      await page.reload();
      await attempts.nth(2).waitFor();
      expect(await attempts.count()).toBe(3);

      // The failure lists its deliveries with their attempts.
      await page.getByRole('link', { name: `Failure #${failureId}` }).click();
      await page.getByRole('heading', { name: `Failure #${failureId}` }).waitFor();
      const delivery = page.locator(`.delivery[data-delivery-id="${item.id}"]`);
      await delivery.filter({ hasText: flaky.url }).waitFor();
      expect(await delivery.locator('td.status-code').allTextContents()).toEqual(['200', '200', '500']);
      await shot('failure-deliveries');

      // Recover a window: nothing happens before the confirmation, then every failed item of it is back.
      await db.prisma.outboundQueueItem.update({
        where: { id: item.id },
        data: { status: 'failed', lastError: 'HTTP 500', lastStatusCode: 500 },
      });
      const failed = await db.prisma.outboundQueueItem.count({ where: { status: 'failed' } });
      expect(failed).toBeGreaterThanOrEqual(2); // this one and the 410 of the webhook test
      await page.getByRole('link', { name: 'Queue', exact: true }).click();
      // datetime-local takes the browser's local time; a day either side covers every item of this test run.
      const local = (ms: number) => new Date(ms - new Date(ms).getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
      await page.getByLabel('Since').fill(local(Date.now() - 86_400_000));
      await page.getByLabel('Until').fill(local(Date.now() + 86_400_000));
      await page.getByRole('button', { name: 'Recover…', exact: true }).click();
      const confirmation = page.getByTestId('recover-confirmation');
      await confirmation.waitFor();
      expect(await confirmation.textContent()).toContain('goes back to pending with a fresh schedule');
      await shot('queue-recover');
      expect(await db.prisma.outboundQueueItem.count({ where: { status: 'failed' } })).toBe(failed);
      await confirmation.getByRole('button', { name: 'Recover now' }).click();
      await page
        .getByRole('status')
        .filter({ hasText: `recovered: ${failed}` })
        .waitFor();
      expect(await db.prisma.outboundQueueItem.count({ where: { status: 'failed' } })).toBe(0);
      expect(await db.prisma.outboundQueueItem.findUniqueOrThrow({ where: { id: item.id } })).toMatchObject({
        status: 'pending',
        messageId: item.messageId,
      });
    } finally {
      await flaky.close();
    }
  });

  it('creates a token that works, shows it once, and revokes it', async () => {
    await page.getByRole('link', { name: 'API tokens' }).click();
    await page.getByLabel('Name').fill('webshop-e2e');
    await page.getByRole('button', { name: 'Create token' }).click();
    const token = (await page.getByTestId('new-token').textContent())!.trim();
    expect(token).toMatch(/^sgw_/);
    await page.locator('tr[data-token-name="webshop-e2e"]').waitFor();
    await shot('tokens');
    expect((await api.request('GET', '/api/v1/updated-products', { token })).status).toBe(200);

    // Shown once: after a reload the list has the token's name, never its value.
    await page.reload();
    await page.locator('tr[data-token-name="webshop-e2e"]').waitFor();
    expect(await page.content()).not.toContain(token);

    await page.locator('tr[data-token-name="webshop-e2e"]').getByRole('button', { name: 'Revoke' }).click();
    await page.locator('tr[data-token-name="webshop-e2e"] button').waitFor({ state: 'detached' });
    expect((await api.request('GET', '/api/v1/updated-products', { token })).status).toBe(401);
  });

  it('creates a channel, binds a webshop token to it, and deletes it, revoking the token', async () => {
    await page.getByRole('link', { name: 'Channels' }).click();
    const byDefault = page.locator('tr[data-channel="default"]');
    await byDefault.waitFor();
    expect(await byDefault.getByRole('button', { name: 'Delete' }).count()).toBe(0);

    await page.getByLabel('Name').fill('shop-two');
    await page.getByLabel('Start from').selectOption('all');
    await page.getByRole('button', { name: 'Create channel' }).click();
    const row = page.locator('tr[data-channel="shop-two"]');
    // From all: the three products pushed at the start are pending for it as new.
    await row
      .getByTestId('lag-product')
      .filter({ hasText: /^3oldest \d+ (s|min)$/ })
      .waitFor();
    expect(await row.getByTestId('channel-tokens').textContent()).toBe('none');
    expect(await db.prisma.channel.findUnique({ where: { name: 'shop-two' } })).toMatchObject({ startedFrom: 'all' });
    await shot('channels');

    // The page's hint on connecting a second shop links to the tokens page.
    await page.getByRole('main').getByRole('link', { name: 'API tokens' }).click();
    await page.getByLabel('Name').fill('shop-two-web');
    await page.getByLabel('Channel').selectOption('shop-two');
    await page.getByRole('button', { name: 'Create token' }).click();
    const token = (await page.getByTestId('new-token').textContent())!.trim();
    await page.locator('tr[data-token-name="shop-two-web"]').filter({ hasText: 'shop-two' }).waitFor();
    expect((await api.request('GET', '/api/v1/updated-products', { token })).status).toBe(200);

    // The Pending page reads one channel at a time: shop-two's records, then back to default.
    await page.goto(`${api.url}/admin/pending?entity=product&channel=shop-two`);
    await page.getByRole('heading', { name: 'Pending changes' }).waitFor();
    expect(await page.getByTestId('pending-channel').inputValue()).toBe('shop-two');
    const onShopTwo = await api.request('GET', '/api/v1/updated-products?limit=500', { token });
    for (const record of onShopTwo.body.payload as Array<{ externalId: string }>)
      await page.locator(`tr[data-pending-key="${record.externalId}"]`).waitFor();
    await page.getByTestId('pending-channel').selectOption('default');
    await page.waitForURL(/\/admin\/pending\?entity=product$/);

    await page.getByRole('link', { name: 'Channels' }).click();
    await row.getByTestId('channel-tokens').filter({ hasText: 'shop-two-web' }).waitFor();
    const dialog = page.waitForEvent('dialog');
    await row.getByRole('button', { name: 'Delete' }).click();
    expect((await dialog).message()).toContain('the tokens bound to it are revoked: shop-two-web');
    await row.waitFor({ state: 'detached' });
    await page.getByRole('status').filter({ hasText: 'Channel shop-two deleted; tokens revoked: shop-two-web' }).waitFor();
    expect(await db.prisma.channel.findUnique({ where: { name: 'shop-two' } })).toBeNull();
    expect((await api.request('GET', '/api/v1/updated-products', { token })).status).toBe(401);
  });

  it('adds, edits, disables and removes a webhook configuration; secrets are never shown', async () => {
    await page.getByRole('link', { name: 'Webhooks' }).click();
    await page.locator('tr[data-webhook-id]').first().waitFor();
    const form = page.locator('form.webhook-form').last();
    await form.getByLabel('URL').fill('https://erp.example.com/hooks/partners');
    await form.getByLabel('Entity').selectOption('partner');
    await form.getByLabel('Direction').selectOption('to_erp');
    await form.getByLabel('Secret').fill('whsec-partner-0123456789');
    await form.getByRole('button', { name: 'Add' }).click();
    const created = await waitForRow(() => db.prisma.webhookConfig.findFirst({ where: { url: 'https://erp.example.com/hooks/partners' } }));
    const row = page.locator(`tr[data-webhook-id="${created.id}"]`);
    await row.waitFor();
    expect(created).toMatchObject({ entityType: 'partner', direction: 'to_erp', active: true });
    expect(api.secrets.decrypt(created.secretEncrypted)).toBe('whsec-partner-0123456789');
    expect(await page.content()).not.toContain('whsec-');
    await shot('webhooks');

    await row.getByRole('button', { name: 'Edit' }).click();
    const edit = page.locator('form.webhook-form').first();
    await edit.getByLabel('URL').fill('https://erp.example.com/hooks/partners-v2');
    await edit.getByRole('button', { name: 'Save' }).click();
    await row.filter({ hasText: 'partners-v2' }).waitFor();
    // The secret was left empty: it is kept.
    const edited = await db.prisma.webhookConfig.findUniqueOrThrow({ where: { id: created.id } });
    expect(api.secrets.decrypt(edited.secretEncrypted)).toBe('whsec-partner-0123456789');

    await row.getByRole('button', { name: 'Disable' }).click();
    await row.getByRole('button', { name: 'Enable' }).waitFor();
    expect((await db.prisma.webhookConfig.findUniqueOrThrow({ where: { id: created.id } })).active).toBe(false);

    await row.getByRole('button', { name: 'Remove' }).click();
    await row.waitFor({ state: 'detached' });
    expect(await db.prisma.webhookConfig.findUnique({ where: { id: created.id } })).toBeNull();
  });

  it('approves a pending registration', async () => {
    const newcomer = 'new-ops@example.com';
    const registered = await api.request('POST', '/api/v1/auth/register', {
      token: null,
      body: { email: newcomer, password: ADMIN.password },
    });
    expect(registered.body).toMatchObject({ status: 'pending' });
    await page.getByRole('link', { name: 'Accounts' }).click();
    const row = page.locator(`tr[data-account-email="${newcomer}"]`);
    await row.waitFor();
    await shot('accounts');
    await row.getByRole('button', { name: 'Approve' }).click();
    await row.locator('.badge.active').waitFor();
    expect(await db.prisma.adminAccount.findUniqueOrThrow({ where: { email: newcomer } })).toMatchObject({
      status: 'active',
      approvedBy: ADMIN.email,
    });
  });

  it('signs out: the session is revoked on the server, not only forgotten', async () => {
    const session = await page.evaluate(() => sessionStorage.getItem('sync-gateway.session'));
    const { token } = JSON.parse(session!) as { token: string };
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    expect((await api.request('POST', '/graphql', { token, body: { query: '{ apiTokens { id } }' } })).status).toBe(401);
  });

  it('resets a forgotten password with the mailed token, then signs in with the new one', async () => {
    await page.getByRole('button', { name: 'Forgot password' }).click();
    await page.getByLabel('Email').fill(ADMIN.email);
    await page.getByRole('button', { name: 'Forgot password' }).click();
    await page.getByRole('status').filter({ hasText: 'reset token is on its way' }).waitFor();
    const mail = resetMails.find((m) => m.email === ADMIN.email);
    expect(mail).toBeDefined();

    // The mail's link: /admin/?reset=<token>
    await page.goto(`${api.url}/admin/?reset=${encodeURIComponent(mail!.token)}`);
    await page.getByRole('heading', { name: 'Set a new password' }).waitFor();
    await page.getByLabel('New password').fill(NEW_PASSWORD);
    await page.getByRole('button', { name: 'Set a new password' }).click();
    await page.getByRole('status').filter({ hasText: 'Password changed' }).waitFor();

    await page.getByLabel('Email').fill(ADMIN.email);
    await page.getByLabel('Password').fill(NEW_PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Pending changes' }).waitFor();
  });
});
