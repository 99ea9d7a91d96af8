/**
 * The operator console in Chromium against the real server (memory store): sign-in, the fleet
 * overview, finding a target by FIQL and its page, assigning a set, uploading an artifact, what a
 * read-only operator sees, the phone layout. Every page must end without console errors.
 */
import { createHash } from 'node:crypto';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, type App } from '../helpers/app.js';
import { ADMIN_HASH } from '../helpers/server.js';
import { docImage, launchBrowser, openPage, signIn, type WatchedPage } from './browser.js';
import { seedFleet, type SeededFleet } from './fleet-seed.js';

const LIBRARIAN = { username: 'librarian', password: ADMIN_HASH, permissions: ['READ_REPOSITORY'] };
const VIEWER = { username: 'viewer', password: ADMIN_HASH, permissions: ['READ_TARGET', 'READ_REPOSITORY', 'READ_ROLLOUT', 'READ_TENANT_CONFIGURATION'] };

let app: App;
let fleet: SeededFleet;
let browser: Browser;

beforeAll(async () => {
  app = await startApp('memory', {}, [VIEWER, LIBRARIAN]);
  fleet = await seedFleet(app);
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser.close();
});

async function withPage(run: (p: WatchedPage) => Promise<void>, viewport?: { width: number; height: number }): Promise<void> {
  const p = await openPage(browser, viewport);
  try {
    await run(p);
    expect(p.errors).toEqual([]);
  } finally {
    await p.close();
  }
}

describe('console', () => {
  it('shows the server message for a wrong password, not a stack trace, then signs in and out', () => withPage(async ({ page }) => {
    await page.goto(`${app.url}/ui/`);
    await page.getByLabel('Username').fill('admin');
    await page.getByLabel('Password').fill('wrong');
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    const alert = page.getByRole('alert');
    await expect.poll(() => alert.textContent()).toBe('Bad credentials');
    await page.getByLabel('Password').fill('admin');
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.getByRole('heading', { name: 'Fleet' }).waitFor();
    expect(await page.getByRole('navigation', { name: 'Main' }).textContent()).toContain('admin');
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    expect(await page.evaluate('fetch("/ui/api/session").then((r) => r.status)')).toBe(401);
    // a bookmarked page asks for the sign-in, then opens as it was asked for
    await page.goto(`${app.url}/ui/#/targets?q=${encodeURIComponent('updateStatus==error')}`);
    await page.getByLabel('Username').fill('admin');
    await page.getByLabel('Password').fill('admin');
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.getByRole('heading', { name: 'Targets' }).waitFor();
    expect(await page.getByLabel('Search (FIQL)').inputValue()).toBe('updateStatus==error');
  }));

  it('shows the fleet counts', () => withPage(async (p) => {
    const { page } = p;
    await signIn(page, app.url, 'admin', 'admin');
    const stat = (label: string) => page.locator('.stat', { has: page.locator('.label', { hasText: new RegExp(`^${label}`) }) }).locator('.value');
    await expect.poll(() => stat('Devices').textContent()).toBe(String(fleet.counts.total));
    expect(await stat('In sync').textContent()).toBe(String(fleet.counts.byStatus['in_sync']));
    expect(await stat('Error').textContent()).toBe(String(fleet.counts.byStatus['error']));
    expect(await stat('Pending').textContent()).toBe(String(fleet.counts.byStatus['pending']));
    expect(await stat('Overdue').textContent()).toBe(String(fleet.counts.overdue));
    expect(await stat('Online').textContent()).toBe(String(fleet.counts.online));
    expect(await page.getByRole('progressbar', { name: 'Devices by update status' }).getAttribute('aria-valuemax')).toBe(String(fleet.counts.total));
    await page.getByRole('table', { name: 'Devices in error' }).getByRole('link').first().waitFor();
    await p.screenshot('fleet');
    docImage('fleet');
  }));

  it('finds targets by FIQL (the server message for a bad query), tags them in bulk, opens one and assigns a set', () => withPage(async (p) => {
    const { page } = p;
    await signIn(page, app.url, 'admin', 'admin');
    await page.getByRole('link', { name: 'Targets' }).click();
    const table = page.getByRole('table', { name: 'Targets' });
    await expect.poll(() => table.locator('tbody tr').count()).toBe(25);
    await expect.poll(() => page.locator('.fiql-count').textContent()).toBe(`${fleet.counts.total} matching targets`);
    for (const row of [1, 2, 4]) await table.locator('tbody tr').nth(row).getByRole('checkbox').check();
    const bulk = page.getByRole('region', { name: 'Selected targets' });
    expect(await bulk.textContent()).toContain('3 selected');
    // every target the search matches, not only this page's 25: read page by page
    await bulk.getByRole('button', { name: `Select all ${fleet.counts.total} matching` }).click();
    await expect.poll(() => bulk.textContent()).toContain(`${fleet.counts.total} selected`);
    expect(await bulk.getByRole('button', { name: /Select all/ }).count()).toBe(0);
    await p.screenshot('targets');
    docImage('targets');
    const search = page.getByLabel('Search (FIQL)');
    await search.fill('updateStatus==');
    await expect.poll(() => page.locator('.fiql-error').textContent()).toMatch(/not well formed/);
    await search.fill('updateStatus==error');
    await expect.poll(() => page.locator('.fiql-count').textContent()).toBe(`${fleet.counts.byStatus['error']} matching targets`);
    await expect.poll(() => table.locator('tbody tr').count()).toBe(fleet.counts.byStatus['error']);
    // bulk: tag every target on the page with a new tag
    await page.getByRole('checkbox', { name: 'Select all on this page' }).check();
    await page.getByRole('region', { name: 'Selected targets' }).getByRole('button', { name: 'Tag' }).click();
    await page.getByRole('dialog').getByLabel('Or a new tag').fill('field-trial');
    await page.getByRole('dialog').getByRole('button', { name: 'Tag', exact: true }).click();
    await expect.poll(() => page.getByRole('status').textContent()).toContain(`Tagged ${fleet.counts.byStatus['error']} target(s) with field-trial`);
    const tagged = await app.mgmt.get(`/rest/v1/targets?limit=1&q=${encodeURIComponent('tag==field-trial')}`);
    expect(tagged.json().total).toBe(fleet.counts.byStatus['error']);
    const first = table.locator('tbody tr').first().getByRole('link');
    const controllerId = await first.textContent();
    await first.click();
    await page.getByRole('heading', { name: 'Attributes' }).waitFor();
    // metadata: add an entry, edit it, delete it; the server holds what the page shows
    const addForm = page.getByRole('form', { name: 'Add metadata' });
    await addForm.getByLabel('Key').fill('site');
    await addForm.getByLabel('Value').fill('berlin-2');
    await addForm.getByRole('button', { name: 'Add' }).click();
    await expect.poll(() => page.getByRole('definition').filter({ hasText: 'berlin-2' }).count()).toBe(1);
    await page.getByRole('button', { name: 'Edit site' }).click();
    await page.getByLabel('Value of site').fill('berlin-3');
    await page.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => page.getByRole('definition').filter({ hasText: 'berlin-3' }).count()).toBe(1);
    const controllerOfPage = decodeURIComponent(page.url().split('/targets/')[1] ?? '');
    expect((await app.mgmt.get(`/rest/v1/targets/${encodeURIComponent(controllerOfPage)}/metadata/site`)).json().value).toBe('berlin-3');
    await page.getByRole('button', { name: 'Delete site' }).click();
    await expect.poll(() => page.getByRole('button', { name: 'Edit site' }).count()).toBe(0);
    expect((await app.mgmt.get(`/rest/v1/targets/${encodeURIComponent(controllerOfPage)}/metadata/site`)).status).toBe(404);
    await expect.poll(() => page.locator('dl.props').nth(1).textContent()).toContain('hw.revision');
    expect(await page.locator('.page-head').textContent()).toContain(controllerId);
    // assign the seeded set: the action appears, and expands to its status history
    await page.getByRole('button', { name: 'Assign distribution set' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel('Distribution set', { exact: true }).selectOption({ label: 'edge-os 2.4.0' });
    await dialog.getByRole('button', { name: 'Assign', exact: true }).click();
    const action = page.locator('.action-head').first();
    // the set's name comes with the action's own read, after the row shows
    await expect.poll(() => action.textContent()).toContain('edge-os 2.4.0');
    await action.click();
    await expect.poll(() => page.locator('.timeline li').count()).toBeGreaterThan(0);
    await p.screenshot('target');
  }), 60_000);

  it('creates a module, uploads an artifact, shows the hashes the server computed, adds the module to a new set', () => withPage(async (p) => {
    const { page } = p;
    await signIn(page, app.url, 'admin', 'admin');
    await page.goto(`${app.url}/ui/#/repository?tab=modules`);
    const create = page.getByRole('button', { name: 'Create module' });
    await create.click();
    const dialog = page.getByRole('dialog');
    // keyboard: the dialog takes the focus, Escape closes it and gives the focus back
    await expect.poll(() => page.evaluate('document.activeElement.id')).toBe('cm-name');
    await page.keyboard.press('Escape');
    await expect.poll(() => dialog.count()).toBe(0);
    expect(await create.evaluate((el) => el === el.ownerDocument.activeElement)).toBe(true);
    await create.click();
    await dialog.getByLabel('Name').fill('agent');
    await dialog.getByLabel('Version').fill('1.2.3');
    await dialog.getByLabel('Type', { exact: true }).selectOption({ index: 0 });
    await dialog.getByRole('button', { name: 'Create' }).click();
    await page.getByRole('heading', { name: 'agent 1.2.3' }).waitFor();
    const moduleUrl = page.url();
    const content = Buffer.alloc(300_000, 7);
    // a slow uplink (Chromium's own throttling, ~150 KB/s): the upload shows its progress as it goes
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: 150_000 });
    await page.getByLabel('Upload artifacts').setInputFiles({ name: 'agent.bin', mimeType: 'application/octet-stream', buffer: content });
    const bar = page.getByRole('progressbar', { name: 'Uploading agent.bin' });
    await bar.waitFor();
    expect(Number(await bar.getAttribute('aria-valuemax'))).toBe(content.length);
    expect(Number(await bar.getAttribute('aria-valuenow'))).toBeLessThan(content.length);
    await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: -1 });
    const sha256 = page.locator('[data-hash="sha256"]');
    await sha256.waitFor();
    expect(await sha256.textContent()).toBe(createHash('sha256').update(content).digest('hex'));
    expect(await page.locator('[data-hash="md5"]').textContent()).toBe(createHash('md5').update(content).digest('hex'));
    expect(await page.locator('[data-hash="sha1"]').textContent()).toBe(createHash('sha1').update(content).digest('hex'));
    await expect.poll(() => page.getByRole('table', { name: 'Artifacts' }).textContent()).toContain('agent.bin');
    await p.screenshot('module');
    // a new set (the tenant's default type) gets the module
    await page.goto(`${app.url}/ui/#/repository?tab=sets`);
    await page.getByRole('button', { name: 'Create set' }).click();
    await dialog.getByLabel('Name').fill('bundle');
    await dialog.getByLabel('Version').fill('1.0');
    await dialog.getByRole('button', { name: 'Create' }).click();
    await page.getByRole('heading', { name: 'bundle 1.0' }).waitFor();
    await page.getByLabel('Add a module', { exact: true }).selectOption({ label: 'agent 1.2.3 (Application)' });
    await page.getByRole('button', { name: 'Add module' }).click();
    await expect.poll(() => page.getByRole('table', { name: 'Modules of the set' }).textContent()).toContain('agent 1.2.3');
    // a set's metadata, as a target's
    const setMeta = page.getByRole('form', { name: 'Add metadata' });
    await setMeta.getByLabel('Key').fill('channel');
    await setMeta.getByLabel('Value').fill('beta');
    await setMeta.getByRole('button', { name: 'Add' }).click();
    await page.getByRole('button', { name: 'Edit channel' }).waitFor();
    const setId = page.url().split('/repository/sets/')[1];
    expect((await app.mgmt.get(`/rest/v1/distributionsets/${setId}/metadata/channel`)).json().value).toBe('beta');
    // delete the set, then the module: each asks first, then goes back to its list
    await page.getByRole('button', { name: 'Delete', exact: true }).click();
    await dialog.getByRole('button', { name: 'Delete', exact: true }).click();
    await page.getByRole('table', { name: 'distribution sets' }).waitFor();
    expect((await app.mgmt.get(`/rest/v1/distributionsets?q=${encodeURIComponent('name==bundle')}`)).json().total).toBe(0);
    await page.goto(moduleUrl);
    await page.getByRole('heading', { name: 'agent 1.2.3' }).waitFor();
    await page.getByRole('button', { name: 'Delete', exact: true }).click();
    await dialog.getByRole('button', { name: 'Delete', exact: true }).click();
    await page.getByRole('table', { name: 'software modules' }).waitFor();
    expect((await app.mgmt.get(`/rest/v1/softwaremodules?q=${encodeURIComponent('name==agent')}`)).json().total).toBe(0);
  }), 60_000);

  it('changes and resets a tenant configuration value', () => withPage(async ({ page }) => {
    await signIn(page, app.url, 'admin', 'admin');
    await page.goto(`${app.url}/ui/#/config`);
    const row = page.getByRole('row', { name: /action\.cleanup\.enabled/ });
    await row.getByRole('checkbox').check();
    await expect.poll(() => row.textContent()).toContain('by admin');
    expect((await app.mgmt.get('/rest/v1/system/configs/action.cleanup.enabled')).json().value).toBe(true);
    await row.getByRole('button', { name: 'Reset' }).click();
    await expect.poll(() => row.textContent()).toContain('default');
    expect((await app.mgmt.get('/rest/v1/system/configs/action.cleanup.enabled')).json().value).toBe(false);
  }));

  it('shows a read-only operator no button that would be refused', () => withPage(async (p) => {
    const { page } = p;
    await signIn(page, app.url, 'viewer', 'admin');
    await page.goto(`${app.url}/ui/#/targets`);
    const table = page.getByRole('table', { name: 'Targets' });
    await expect.poll(() => table.locator('tbody tr').count()).toBe(25);
    expect(await page.getByRole('button', { name: 'Create target' }).count()).toBe(0);
    expect(await table.getByRole('checkbox').count()).toBe(0);
    await table.locator('tbody tr').first().getByRole('link').click();
    await page.getByRole('heading', { name: 'Actions' }).waitFor();
    expect(await page.getByRole('button', { name: /Assign|Delete|Edit|Add/ }).count()).toBe(0);
    expect(await page.getByRole('form', { name: 'Add metadata' }).count()).toBe(0);
    await page.goto(`${app.url}/ui/#/repository?tab=sets`);
    await page.getByRole('table', { name: 'distribution sets' }).getByRole('link').first().click();
    await page.getByRole('table', { name: 'Modules of the set' }).waitFor();
    expect(await page.getByRole('button', { name: /Delete|Remove|Add/ }).count()).toBe(0);
    await page.goto(`${app.url}/ui/#/repository?tab=sets`);
    await page.getByRole('table', { name: 'distribution sets' }).getByRole('link').first().waitFor();
    expect(await page.getByRole('button', { name: /Create/ }).count()).toBe(0);
    await page.goto(`${app.url}/ui/#/config`);
    await page.getByRole('table', { name: 'Tenant configuration' }).locator('tbody tr').first().waitFor();
    expect(await page.locator('.cfg-edit, input[type="checkbox"]').count()).toBe(0);
    await p.screenshot('config-read-only');
    expect(await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Configuration' }).count()).toBe(1);
  }));

  it('opens the first page an operator may see, and says so for a page they may not', () => withPage(async ({ page }) => {
    await signIn(page, app.url, 'librarian', 'admin');
    await page.getByRole('heading', { name: 'Repository' }).waitFor();
    expect(await page.getByRole('navigation', { name: 'Main' }).getByRole('link').allTextContents()).toEqual(['Repository']);
    await page.goto(`${app.url}/ui/#/config`);
    await page.getByRole('heading', { name: 'Not for this account' }).waitFor();
    expect(await page.getByRole('main').getByRole('link', { name: 'Repository' }).count()).toBe(1);
  }));

  it('collapses the navigation behind a menu button at phone width', () => withPage(async (p) => {
    const { page } = p;
    await signIn(page, app.url, 'admin', 'admin');
    const menu = page.getByRole('button', { name: 'Menu' });
    const targets = page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Targets' });
    expect(await menu.isVisible()).toBe(true);
    expect(await targets.isVisible()).toBe(false);
    await menu.click();
    expect(await targets.isVisible()).toBe(true);
    await p.screenshot('phone-menu');
    await targets.click();
    await page.getByRole('table', { name: 'Targets' }).locator('tbody tr').first().waitFor();
    await expect.poll(() => targets.isVisible()).toBe(false);
    expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
    await p.screenshot('phone-targets');
  }, { width: 390, height: 844 }));
});
