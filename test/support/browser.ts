import { existsSync } from 'node:fs';
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
