/**
 * Chromium for the console's browser tests: Debian's chromium driven by playwright-core, one browser
 * per test file, a page per scenario with its console errors and uncaught exceptions collected.
 * Screenshots go to test/artifacts/ (ignored by git).
 */
import { copyFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';

export const ARTIFACTS = join(import.meta.dirname, '..', 'artifacts');

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({ executablePath: process.env['CHROMIUM'] ?? '/usr/bin/chromium', headless: true, args: ['--no-sandbox'] });
}

export interface WatchedPage {
  readonly page: Page;
  /** Console errors and uncaught exceptions so far. */
  readonly errors: string[];
  screenshot(name: string): Promise<void>;
  close(): Promise<void>;
}

/**
 * The browser's own line for an HTTP error answer to fetch/XHR (`Failed to load resource: ... status of 401`):
 * the API's expected refusals (wrong password, bad FIQL), shown to the user by the page itself. Everything
 * else (script errors, CSP violations, failed assets) counts as an error.
 */
const API_REFUSAL = /^Failed to load resource: the server responded with a status of 4\d\d/;

export async function openPage(browser: Browser, viewport = { width: 1280, height: 800 }): Promise<WatchedPage> {
  const context = await browser.newContext({ viewport });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error' && !API_REFUSAL.test(m.text())) errors.push(`${m.text()} (${m.location().url})`);
  });
  page.on('pageerror', (e) => { errors.push(`uncaught: ${e.message}`); });
  return {
    page,
    errors,
    async screenshot(name) {
      mkdirSync(ARTIFACTS, { recursive: true });
      await page.screenshot({ path: join(ARTIFACTS, `${name}.png`) });
    },
    close: () => context.close(),
  };
}

/** Signs in through the console's form and waits for the shell. */
export async function signIn(page: Page, baseUrl: string, username: string, password: string): Promise<void> {
  await page.goto(`${baseUrl}/ui/`);
  await page.getByLabel('Username').fill(username);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await page.locator('.shell').waitFor();
  // the shell shows first, then the app leaves #/login for the page asked for: a test's own page.goto
  // made before that would be overridden by it (a console test failed on that race in CI)
  await page.waitForURL((url) => !url.hash.startsWith('#/login'));
}

/** CONSOLE_DOC_IMAGES=1 copies test/artifacts/<name>.png to docs/images/ (the README's screenshots). */
export function docImage(name: string): void {
  if (process.env['CONSOLE_DOC_IMAGES'] !== '1') return;
  const dir = join(import.meta.dirname, '..', '..', 'docs', 'images');
  mkdirSync(dir, { recursive: true });
  copyFileSync(join(ARTIFACTS, `${name}.png`), join(dir, `${name}.png`));
}
