/**
 * Signing in to the console through an OpenID provider (test/helpers/oidc.ts runs a real one in
 * process): the button on the sign-in page, the provider's login and consent pages, back in the
 * console with the permissions the user's roles map to; a failed sign-in's message on the sign-in page.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, type App } from '../helpers/app.js';
import { oidcConfig, startOidcProvider, type TestOidcProvider } from '../helpers/oidc.js';
import { launchBrowser, openPage } from './browser.js';

let provider: TestOidcProvider;
let app: App;
let browser: Browser;

beforeAll(async () => {
  provider = await startOidcProvider({ users: [{ username: 'olivia', roles: ['fleet-viewer'] }] });
  app = await startApp('memory', { auth: { oidc: oidcConfig(provider, { roles: { 'fleet-viewer': ['READ_TARGET'] } }) } });
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser.close();
  await provider.close();
});

describe('console sign-in with OpenID Connect', () => {
  it("signs in through the provider's pages and gets the mapped permissions", async () => {
    const { page, errors, close } = await openPage(browser);
    try {
      await page.goto(`${app.url}/ui/`);
      await page.getByRole('link', { name: 'Sign in with single sign-on' }).click();
      await page.waitForURL((url) => url.origin === provider.issuer);
      await page.locator('input[name="login"]').fill('olivia');
      await page.locator('input[name="password"]').fill('anything');
      await page.getByRole('button', { name: /sign-in/i }).click();
      await page.getByRole('button', { name: /continue/i }).click();
      // the provider's development pages load web fonts from the internet, which the test machine may not reach: not ours
      errors.length = 0;
      await page.waitForURL((url) => url.origin === app.url);
      await page.getByRole('heading', { name: 'Fleet' }).waitFor();
      const nav = page.getByRole('navigation', { name: 'Main' });
      expect(await nav.textContent()).toContain('olivia');
      // READ_TARGET only: the fleet and targets, not rollouts, the repository or the configuration
      const links = await nav.getByRole('link').allTextContents();
      expect(links).toEqual(expect.arrayContaining(['Fleet', 'Targets']));
      expect(links).not.toEqual(expect.arrayContaining(['Rollouts']));
      expect(links).not.toEqual(expect.arrayContaining(['Repository']));
      expect(links).not.toEqual(expect.arrayContaining(['Configuration']));
      expect(errors).toEqual([]);
    } finally {
      await close();
    }
  });

  it('shows why a sign-in failed', async () => {
    const { page, errors, close } = await openPage(browser);
    try {
      await page.goto(`${app.url}/ui/#/login?error=${encodeURIComponent('The provider refused the sign-in')}`);
      await expect.poll(() => page.getByRole('alert').textContent()).toBe('The provider refused the sign-in');
      expect(await page.getByRole('link', { name: 'Sign in with single sign-on' }).getAttribute('href')).toBe('/ui/oidc/login');
      expect(errors).toEqual([]);
    } finally {
      await close();
    }
  });
});
