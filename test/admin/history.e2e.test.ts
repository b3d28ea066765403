/**
 * The console's history page end to end in Debian's Chromium (as console.e2e.test.ts): a product
 * pushed twice shows both entries, newest first, with each field's old → new; reached from a
 * failure, from the reconciliation page and by its URL; long values open on demand; the empty,
 * not-found and bad-input states. With CONSOLE_SCREENSHOTS=<dir> it saves `history.png`.
 */
import { type Browser, type Page } from 'playwright-core';
import { createAdminAccount } from '../../src/accounts/account.service';
import { openConsolePage, requireConsoleAndChromium, screenshot, signInToConsole } from '../support/browser';
import { openTestDatabase, type TestDatabase } from '../support/database';
import { startTestServer, type TestServer } from '../support/http';

const ADMIN = { email: 'history@example.com', password: 'correct horse battery staple' };
const LONG_DESCRIPTION = `A reading lamp with a linen shade. ${'Warm light, dimmable, 2700 K. '.repeat(6)}`.trim();

jest.setTimeout(120_000);

const retail = (price: number) => ({ pricelist_external_id: 'RETAIL', pricelist_name: 'Retail', price });

describe('console history page in Chromium', () => {
  let db: TestDatabase;
  let api: TestServer;
  let browser: Browser;
  let page: Page;

  const push = async (products: unknown[]) => {
    const pushed = await api.request('POST', '/api/v1/products', { body: { products } });
    expect(pushed.status).toBe(200);
  };

  beforeAll(async () => {
    requireConsoleAndChromium();
    db = await openTestDatabase('embedded');
    api = await startTestServer(db);
    await createAdminAccount(db.prisma, ADMIN);
    await push([
      { external_id: 'H-1', name: 'Lamp', price: 10, attributes: { color: 'red' }, pricelists: [retail(10)] },
      { external_id: 'H-2', name: 'Shade' },
    ]);
    await push([
      {
        external_id: 'H-1',
        name: 'Desk lamp',
        price: 12.5,
        description: LONG_DESCRIPTION,
        attributes: { color: 'red', sizes: ['S', 'M'] },
        pricelists: [retail(12.5)],
      },
    ]);
    // H-2's entries are gone, as after the retention period.
    const shade = await db.prisma.product.findUniqueOrThrow({ where: { externalId: 'H-2' } });
    await db.prisma.changeHistoryEntry.deleteMany({ where: { entityType: 'product', recordId: shade.id } });
    ({ browser, page } = await openConsolePage());
  });

  afterAll(async () => {
    await browser?.close();
    await api?.close();
    await db?.close();
  });

  const entries = () => page.locator('[data-testid="history-table"] tr.history-entry');
  const change = (revision: number, field: string) =>
    page.locator(`tr.history-entry[data-revision="${revision}"] li[data-field="${field}"]`);

  it("shows a product's two versions newest first, each field old → new, reached from a failure", async () => {
    await signInToConsole(page, api.url, ADMIN);
    await page.getByRole('heading', { name: 'Pending changes' }).waitFor();
    const reported = await api.request('POST', '/api/v1/failures', {
      body: { entity_type: 'product', source: 'webshop', external_id: 'H-1', error_message: 'Price looks wrong' },
    });
    expect(reported.status).toBe(201);
    await page.goto(`${api.url}/admin/failures`);
    await page.locator(`tr[data-failure-id="${reported.body.id}"]`).getByRole('link', { name: 'H-1' }).click();

    await page.getByRole('heading', { name: 'product H-1' }).waitFor();
    expect(new URL(page.url()).search).toBe('?entityType=product&externalId=H-1');
    expect(await page.getByLabel('External id').inputValue()).toBe('H-1');
    expect(await entries().count()).toBe(2);
    expect(
      await entries().evaluateAll((rows) => rows.map((r) => [r.getAttribute('data-revision'), r.getAttribute('data-action')])),
    ).toEqual([
      ['2', 'updated'],
      ['1', 'created'],
    ]);
    // Who pushed: the test server's integration token.
    expect(await entries().first().locator('td').nth(3).textContent()).toMatch(/^test-/);

    // Revision 2: old → new per changed field, JSON shown compactly.
    expect(await change(2, 'name').textContent()).toBe('name "Lamp" → "Desk lamp"');
    expect(await change(2, 'price').textContent()).toBe('price 10 → 12.5');
    expect(await change(2, 'attributes').textContent()).toBe('attributes {"color":"red"} → {"color":"red","sizes":["S","M"]}');
    // Revision 1 created the record: no old values.
    expect(await change(1, 'name').textContent()).toBe('name — → "Lamp"');
    expect(await change(1, 'price').textContent()).toBe('price — → 10');
    expect(await change(1, 'description').count()).toBe(0);

    // A long value is cut; the full value opens on demand.
    const description = change(2, 'description');
    expect(await description.locator('.new code.json').textContent()).toMatch(/^"A reading lamp with a linen shade\. .*…$/);
    expect(await description.locator('pre.json-full').count()).toBe(0);
    await description.getByRole('button', { name: /all \d+ characters/ }).click();
    expect(await description.locator('pre.json-full').textContent()).toBe(JSON.stringify(LONG_DESCRIPTION));
    await screenshot(page, 'history');
    await description.getByRole('button', { name: 'less' }).click();
    expect(await description.locator('pre.json-full').count()).toBe(0);
  });

  it('is reached from the reconciliation page with the form, and the URL can be linked', async () => {
    await page.getByRole('link', { name: 'Reconciliation' }).click();
    await page.getByRole('link', { name: 'History of a partner' }).click();
    await page.getByRole('heading', { name: 'History', exact: true }).waitFor();
    expect(await page.getByLabel('Entity type').inputValue()).toBe('partner');
    await page.getByLabel('Entity type').selectOption('product');
    await page.getByLabel('External id').fill('H-1');
    await page.getByRole('button', { name: 'Show history' }).click();
    await page.getByRole('heading', { name: 'product H-1' }).waitFor();
    expect(new URL(page.url()).search).toBe('?entityType=product&externalId=H-1');
    await entries().nth(1).waitFor();

    // The same URL in a fresh load shows the same history.
    await page.reload();
    await entries().nth(1).waitFor();
    expect(await entries().count()).toBe(2);
  });

  it("shows a product's price items with their pricelist", async () => {
    await page.getByLabel('Entity type').selectOption('price_item');
    await page.getByRole('button', { name: 'Show history' }).click();
    await page.getByRole('heading', { name: 'price_item H-1' }).waitFor();
    expect(await page.locator('[data-testid="history-table"] th').allTextContents()).toContain('Pricelist');
    const latest = entries().first();
    expect(await latest.getAttribute('data-action')).toBe('updated');
    expect(await latest.locator('td').nth(4).textContent()).toBe('RETAIL');
    expect(await latest.locator('li[data-field="price"]').textContent()).toBe('price 10 → 12.5');
  });

  it('says when a record has no entries, when it does not exist, and shows bad input as an error', async () => {
    await page.goto(`${api.url}/admin/history?entityType=product&externalId=H-2`);
    await page.getByTestId('history-empty').waitFor();

    await page.goto(`${api.url}/admin/history?entityType=product&externalId=NOPE`);
    const missing = page.getByTestId('history-not-found');
    await missing.waitFor();
    expect(await missing.textContent()).toContain('Product "NOPE" does not exist');
    expect(await page.locator('[data-testid="history-table"]').count()).toBe(0);

    // A hand-made URL: stock keeps no history, and the server's 400 names the field.
    await page.goto(`${api.url}/admin/history?entityType=stock&externalId=H-1`);
    expect(await page.getByRole('alert').textContent()).toContain('entityType');
  });
});
