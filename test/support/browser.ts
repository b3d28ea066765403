import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { CONSOLE_BUILD_DIR } from '../../src/admin/console.plugin';

/** Debian's Chromium (apt-get install chromium); Playwright's own browser download is never used. */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export const hasChromium = (): boolean => existsSync(CHROMIUM_PATH);

/** The console's tests cannot run without the built console and a Chromium: say which is missing. */
export function requireConsoleAndChromium(): void {
  if (!existsSync(path.join(CONSOLE_BUILD_DIR, 'index.html'))) throw new Error('dist/console is not built: run `npm run build:console`');
  if (!hasChromium()) throw new Error(`No Chromium at ${CHROMIUM_PATH}: apt-get install chromium (or set CHROMIUM_PATH)`);
}

/** Headless Chromium; the machine's network is closed, so it is kept from calling home. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

/** Opens the console and signs in (the password field already on screen, or filled anew). */
export async function signInToConsole(page: Page, baseUrl: string, account: { email: string; password: string }): Promise<void> {
  await page.goto(`${baseUrl}/admin/`);
  await page.getByLabel('Email').fill(account.email);
  await page.getByLabel('Password').fill(account.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

/** CONSOLE_SCREENSHOTS=<dir>: the console's tests save screenshots of their views there (docs/console/ holds them). */
const SCREENSHOTS = process.env.CONSOLE_SCREENSHOTS;

/** A headless Chromium and a page the size of docs/console's screenshots. */
export async function openConsolePage(): Promise<{ browser: Browser; page: Page }> {
  const browser = await launchChromium();
  const page = await browser.newPage({ viewport: { width: 1280, height: 860 } });
  if (SCREENSHOTS) mkdirSync(SCREENSHOTS, { recursive: true });
  return { browser, page };
}

/** Saves the whole page as `<name>.png` in CONSOLE_SCREENSHOTS, when it is set. */
export async function screenshot(page: Page, name: string): Promise<void> {
  if (SCREENSHOTS) await page.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`), fullPage: true });
}
