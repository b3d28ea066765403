/**
 * The console's reconciliation page end to end in Debian's Chromium (as console.e2e.test.ts):
 * the per-entity table, and a resync with its count preview and confirmation (ADR 0029).
 */
import { type Browser, type Page } from 'playwright-core';
import { createAdminAccount } from '../../src/accounts/account.service';
import { openConsolePage, requireConsoleAndChromium, signInToConsole } from '../support/browser';
import { openTestDatabase, type TestDatabase } from '../support/database';
import { startTestServer, type TestServer } from '../support/http';

const ADMIN = { email: 'recon@example.com', password: 'correct horse battery staple' };

jest.setTimeout(120_000);

describe('console reconciliation page in Chromium', () => {
  let db: TestDatabase;
  let api: TestServer;
  let browser: Browser;
  let page: Page;
  const dialogs: string[] = [];

  beforeAll(async () => {
    requireConsoleAndChromium();
    db = await openTestDatabase('embedded');
    api = await startTestServer(db);
    await createAdminAccount(db.prisma, ADMIN);
    await api.request('POST', '/api/v1/products', {
      body: { products: ['R-1', 'R-2', 'R-3'].map((external_id) => ({ external_id, name: external_id })) },
    });
    const listed = await api.request('GET', '/api/v1/updated-products');
    await api.request('POST', '/api/v1/updated-products/batch-delete', {
      body: { ids: listed.body.payload.map((p: { id: number }) => p.id) },
    });
    ({ browser, page } = await openConsolePage());
    page.on('dialog', (dialog) => {
      dialogs.push(dialog.message());
      void dialog.accept();
    });
  });

  afterAll(async () => {
    await browser?.close();
    await api?.close();
    await db?.close();
  });

  it('shows the per-entity table and resyncs after a count preview and a confirmation', async () => {
    await signInToConsole(page, api.url, ADMIN);
    await page.getByRole('link', { name: 'Reconciliation' }).click();
    await page.getByRole('heading', { name: 'Reconciliation' }).waitFor();
    const products = page.locator('[data-testid="reconciliation-table"] tr[data-entity="product"]');
    await products.locator('td').nth(1).filter({ hasText: '3' }).waitFor();
    expect(await page.getByTestId('pending-product').textContent()).toBe('0');
    expect(await page.locator('[data-testid="reconciliation-table"] tbody tr').count()).toBe(6);

    await page.getByLabel('External ids').fill('R-1, R-3');
    await page.getByRole('button', { name: 'Count' }).click();
    await page.getByTestId('resync-preview').filter({ hasText: '2 product record(s) match' }).waitFor();
    // The preview changed nothing.
    expect((await api.request('GET', '/api/v1/updated-products')).body.meta.total).toBe(0);

    await page.getByRole('button', { name: 'Resync 2' }).click();
    await page.getByRole('status').filter({ hasText: '2 record(s) resynced' }).waitFor();
    expect(dialogs).toEqual([expect.stringContaining('Resync 2 product record(s)?')]);
    await page.getByTestId('pending-product').filter({ hasText: '2' }).waitFor();
    const pending = (await api.request('GET', '/api/v1/updated-products')).body.payload;
    expect(pending.map((p: { externalId: string }) => p.externalId).sort()).toEqual(['R-1', 'R-3']);
  });
});
