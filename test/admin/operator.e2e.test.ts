/**
 * The console an operator needs (issue 32, item 6), end to end in Debian's Chromium: the sign-in
 * page says how to make the first admin and offers no registration when it is closed; the Pending
 * page shows each pending record's changed fields before → now, its age and a link to its
 * history, and reading it leaves every listing mark as it was; with an endpoint failing every
 * attempt the Overview counts what the queue shows; the queue finds a delivery by webhook-id and
 * by failure; the Webhooks page shows the last hour's success rate, latency and failingSince.
 * With CONSOLE_SCREENSHOTS=<dir> it saves sign-in-closed.png, pending.png, queue-search.png and
 * webhooks-stats.png.
 */
import { type Browser, type Page } from 'playwright-core';
import pino from 'pino';
import { createAdminAccount } from '../../src/accounts/account.service';
import { createToken } from '../../src/auth/token.service';
import { createWorker } from '../../src/queue/worker';
import { createWebhook } from '../../src/webhooks/webhook.service';
import { openConsolePage, requireConsoleAndChromium, screenshot, signInToConsole } from '../support/browser';
import { openTestDatabase, type TestDatabase } from '../support/database';
import { startTestServer, type TestServer } from '../support/http';
import { startReceiver } from '../support/receiver';

const ADMIN = { email: 'operator@example.com', password: 'correct horse battery staple' };

jest.setTimeout(120_000);

describe('the operator pages in Chromium', () => {
  let db: TestDatabase;
  let api: TestServer;
  let browser: Browser;
  let page: Page;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;

  const shot = (name: string) => screenshot(page, name);
  const listingMarks = async () => ({
    products: await db.prisma.product.findMany({ select: { id: true, listedRevisions: true }, orderBy: { id: 'asc' } }),
    stocks: await db.prisma.stock.findMany({ select: { id: true, listedRevisions: true }, orderBy: { id: 'asc' } }),
  });

  beforeAll(async () => {
    requireConsoleAndChromium();
    db = await openTestDatabase('embedded');
    // REGISTRATION=closed, as the test server has it: admins come from the CLI only.
    api = await startTestServer(db);
    await createAdminAccount(db.prisma, ADMIN);
    receiver = await startReceiver(() => ({ status: 503, body: 'maintenance' }));
    ({ browser, page } = await openConsolePage());
  });

  afterAll(async () => {
    await browser?.close();
    await receiver?.close();
    await api?.close();
    await db?.close();
  });

  it('says how to create the first admin and offers no registration while it is closed', async () => {
    await page.goto(`${api.url}/admin/`);
    const hint = page.getByTestId('first-admin');
    expect(await hint.textContent()).toContain('node bin/sync-gateway.js admin create --email');
    expect(await page.locator('nav.modes').textContent()).toContain('Forgot password');
    expect(await page.getByRole('button', { name: 'Register' }).count()).toBe(0);
    await shot('sign-in-closed');
  });

  it("shows pending records' changes before → now, their age and history, and marks nothing as listed", async () => {
    const webshop = (await createToken(db.prisma, 'shop', 'webshop')).token;
    await api.request('POST', '/api/v1/products', {
      body: { products: [{ external_id: 'CUP', name: 'Cup', price: 4 }] },
    });
    const listed = await api.request('GET', '/api/v1/updated-products', { token: webshop });
    await api.request('DELETE', `/api/v1/updated-products/${listed.body.payload[0].id}`, { token: webshop });
    await api.request('POST', '/api/v1/products', {
      body: {
        products: [
          { external_id: 'CUP', price: 4.5, name: 'Tea cup' },
          { external_id: 'MUG', name: 'Mug' },
        ],
      },
    });
    await api.request('POST', '/api/v1/stocks', {
      body: { stocks: [{ supplier_external_id: 'S1', product_external_id: 'CUP', quantity: 7 }] },
    });
    // An hour old, as the age column will say.
    await db.prisma.product.update({ where: { externalId: 'CUP' }, data: { updatedAt: new Date(Date.now() - 61 * 60_000) } });
    const before = await listingMarks();

    await signInToConsole(page, api.url, ADMIN);
    await page.getByTestId('pending-products').filter({ hasText: '2' }).waitFor();
    await page.getByRole('link', { name: 'Products', exact: true }).click();
    await page.getByRole('heading', { name: 'Pending changes' }).waitFor();
    const cup = page.locator('tr[data-pending-key="CUP"]');
    await cup.waitFor();
    expect(await cup.locator('li[data-field="price"]').textContent()).toBe('price 4 → 4.5');
    expect(await cup.locator('li[data-field="name"]').textContent()).toBe('name "Cup" → "Tea cup"');
    expect(await cup.getByTestId('age').textContent()).toBe('1 h 1 min');
    const mug = page.locator('tr[data-pending-key="MUG"]');
    expect(await mug.locator('.badge.new').count()).toBe(1);
    // Oldest change first.
    expect(await page.locator('table.pending tbody tr').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-pending-key')))).toEqual(
      ['CUP', 'MUG'],
    );
    await shot('pending');

    await page.getByRole('link', { name: 'Stock entries' }).click();
    const stock = page.locator('tr[data-pending-key="S1/CUP"]');
    await stock.waitFor();
    expect(await stock.textContent()).toContain('no history');

    await page.getByRole('link', { name: 'Products', exact: true }).click();
    await cup.getByRole('link', { name: 'History' }).click();
    await page.locator('[data-testid="history-table"]').waitFor();
    expect(new URL(page.url()).search).toBe('?entityType=product&externalId=CUP');

    // The console's reads left every listing mark as it was: the webshop's ack of MUG by id covers nothing.
    expect(await listingMarks()).toEqual(before);
    const mugId = before.products.find((p) => p.id !== listed.body.payload[0].id)!.id;
    const ack = await api.request('POST', '/api/v1/updated-products/batch-delete', { token: webshop, body: { ids: [mugId] } });
    expect(ack.body).toMatchObject({ acknowledged: 0, notListed: [mugId] });
  });

  it('counts, on the overview, the failed attempts and retrying items the queue shows', async () => {
    const config = await createWebhook(db.prisma, api.secrets, {
      url: receiver.url,
      entityType: 'partner',
      direction: 'to_erp',
      secret: 'whsec-operator-0123456789',
    });
    const reported = await api.request('POST', '/api/v1/failures', {
      body: { entity_type: 'partner', source: 'webshop', external_id: 'P-1', error_message: 'Unknown country' },
    });
    const worker = createWorker({ database: db.prisma, secrets: api.secrets, logger: pino({ level: 'silent' }) });
    await worker.runOnce();
    await db.prisma.outboundQueueItem.updateMany({ where: { status: 'pending' }, data: { nextAttemptAt: new Date(Date.now() - 1_000) } });
    await worker.runOnce();
    const item = await db.prisma.outboundQueueItem.findFirstOrThrow({ where: { failureId: reported.body.id } });
    expect(item).toMatchObject({ status: 'pending', attempts: 2 });

    await page.goto(`${api.url}/admin/`);
    await page.getByTestId('queue-retrying').filter({ hasText: '1' }).waitFor();
    expect(await page.getByTestId('queue-failed').textContent()).toBe('0');
    expect(await page.getByTestId('delivery-legend').textContent()).toContain('2 failed attempts');
    await page.getByRole('link', { name: 'retrying after a failed attempt' }).click();
    const row = page.locator(`tr[data-queue-id="${item.id}"]`);
    await row.waitFor();
    expect(await row.textContent()).toContain('HTTP 503');
    expect(await page.locator('table.list tbody tr').count()).toBe(1);

    // By webhook-id, as a receiver logged it; then by failure; then an unknown id.
    await page.goto(`${api.url}/admin/queue`);
    await page.getByLabel('webhook-id').fill(item.messageId);
    await page.getByRole('button', { name: 'Search' }).click();
    await row.waitFor();
    expect(await page.locator('table.list tbody tr').count()).toBe(1);
    expect(new URL(page.url()).searchParams.get('messageId')).toBe(item.messageId);
    await shot('queue-search');
    await page.getByLabel('webhook-id').fill('');
    await page.getByLabel('Failure #').fill(String(reported.body.id));
    await page.getByRole('button', { name: 'Search' }).click();
    await page.waitForURL(/failureId=/);
    await row.waitFor();
    await page.getByLabel('webhook-id').fill('msg_unknown');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.getByTestId('queue-none').waitFor();

    await page.getByRole('link', { name: 'Webhooks', exact: true }).click();
    const hook = page.locator(`tr[data-webhook-id="${config.id}"]`);
    await hook.waitFor();
    const lastHour = hook.getByTestId('last-hour');
    await lastHour.filter({ hasText: '0% ok of 2' }).waitFor();
    expect(await lastHour.textContent()).toMatch(/avg \d+ ms · p95 \d+ ms/);
    expect(await hook.getByTestId('failing-since').textContent()).toMatch(/^failing since \S/);
    await shot('webhooks-stats');
  });
});
