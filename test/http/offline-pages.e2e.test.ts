/**
 * The human pages work in a closed network: GraphiQL at /graphql and the API reference at
 * /api/reference load in Debian's Chromium (playwright-core) with every request that does not
 * go to this service failing, and both do their job (a query runs, the operations render).
 */
import { type Browser, type BrowserContext, type Page } from 'playwright-core';
import { CHROMIUM_PATH, hasChromium, launchChromium } from '../support/browser';
import { openTestDatabase, type TestDatabase } from '../support/database';
import { startTestServer, type TestServer } from '../support/http';
import { waitFor } from '../support/wait-for';

const describeWithChromium = hasChromium() ? describe : describe.skip;
if (!hasChromium()) {
  console.warn(`offline pages e2e skipped: no Chromium at ${CHROMIUM_PATH} (apt-get install chromium, or set CHROMIUM_PATH)`);
}

jest.setTimeout(120_000);

describeWithChromium('offline pages in Chromium', () => {
  let db: TestDatabase;
  let api: TestServer;
  let browser: Browser;
  let context: BrowserContext;
  /** Every request the pages tried outside this service (all of them failed). */
  const outside: string[] = [];
  const consoleErrors: string[] = [];

  beforeAll(async () => {
    db = await openTestDatabase('embedded');
    api = await startTestServer(db);
    const synced = await api.request('POST', '/api/v1/products', {
      body: { products: [{ external_id: 'SKU-1' }, { external_id: 'SKU-2' }] },
    });
    expect(synced.status).toBe(200);
    browser = await launchChromium();
    context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const local = new URL(api.url).host;
    await context.route('**/*', (route) => {
      const url = new URL(route.request().url());
      if (url.protocol === 'data:' || url.protocol === 'blob:' || url.host === local) return route.continue();
      outside.push(url.href);
      return route.abort('internetdisconnected');
    });
  });

  afterAll(async () => {
    await browser?.close();
    await api?.close();
    await db?.close();
  });

  /** Reads until the check holds (the pages render asynchronously); fails with the last value read. */
  const until = async <T>(read: () => Promise<T>, holds: (value: T) => boolean): Promise<T> => {
    let value: T | undefined;
    // A timeout is reported below, with the last value read rather than waitFor's message.
    await waitFor(async () => holds((value = await read())), 30_000, 'the page').catch(() => undefined);
    expect(value !== undefined && holds(value) ? 'held' : value).toBe('held');
    return value as T;
  };

  const openPage = async (path: string): Promise<Page> => {
    const page = await context.newPage();
    page.on('console', (message) => {
      if (message.type() === 'error') consoleErrors.push(`${path}: ${message.text()}`);
    });
    const response = await page.goto(`${api.url}${path}`);
    expect(response?.status()).toBe(200);
    return page;
  };

  it('GraphiQL opens with a working example and a token template, loads from this service alone, and runs it', async () => {
    const page = await openPage('/graphql');
    const queryEditor = page.locator('.graphiql-query-editor');
    await until(
      async () => ((await queryEditor.textContent()) ?? '').replace(/\s/g, ' '),
      (text) => text.includes('pendingChanges'),
    );
    await page
      .getByRole('button', { name: /headers/i })
      .first()
      .click();
    const headersEditor = page.locator('.graphiql-editor-tool .graphiql-editor').last();
    await until(
      async () => ((await headersEditor.textContent()) ?? '').replace(/\s/g, ' '),
      (text) => text.includes('"Authorization": "Bearer sgw_…"'),
    );
    // What a user does: replace the template's placeholder with a token, run the example as it is.
    await headersEditor.click();
    await page.keyboard.press('ControlOrMeta+A');
    await page.keyboard.press('Backspace');
    await page.keyboard.insertText(JSON.stringify({ Authorization: `Bearer ${api.token}` }));
    // Monaco may have closed a bracket or quote it saw typed: drop whatever follows the JSON.
    await page.keyboard.press('Shift+ControlOrMeta+End');
    await page.keyboard.press('Delete');
    await page.getByRole('button', { name: /execute query/i }).click();
    const response = page.locator('.graphiql-response');
    // Monaco lays the result out with non-breaking spaces.
    await until(
      async () => ((await response.textContent()) ?? '').replace(/\s/g, ' '),
      (text) => text.includes('"products": 2'),
    );
    expect(outside).toEqual([]);
    // GraphiQL introspects with the template's placeholder first: those 401s are the only errors
    // allowed (a Content-Security-Policy violation would be one too).
    expect(consoleErrors.filter((e) => e.startsWith('/graphql') && !/status of 401/.test(e))).toEqual([]);
  });

  it('the API reference renders every operation of /api/doc from bundled Swagger UI', async () => {
    const page = await openPage('/api/reference');
    await page.locator('.opblock').first().waitFor({ timeout: 30_000 });
    const doc = (await (await fetch(`${api.url}/api/doc`)).json()) as { paths: Record<string, Record<string, unknown>> };
    const operations = Object.values(doc.paths).reduce((n, ops) => n + Object.keys(ops).length, 0);
    expect(await page.locator('.opblock').count()).toBe(operations);
    const paths = await page.locator('.opblock-summary-path').allTextContents();
    expect(paths.map((p) => p.replace(/\u200b/g, ''))).toContain('/api/v1/updated-products');
    expect(await page.title()).toMatch(/API reference/);
    expect(outside).toEqual([]);
    expect(consoleErrors.filter((e) => e.startsWith('/api/reference'))).toEqual([]);
  });

  it('sends a browser asking for /api/doc to the reference', async () => {
    const page = await openPage('/api/doc');
    expect(new URL(page.url()).pathname).toBe('/api/reference');
    await page.locator('.opblock').first().waitFor({ timeout: 30_000 });
  });
});
