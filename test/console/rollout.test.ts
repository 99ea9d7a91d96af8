/**
 * The console's rollout pages in a real browser (Debian's chromium): the create wizard (the filter's
 * live count, 4 groups, a 100 % success threshold), start, and a group's bar following devices that
 * report over DDI without a page reload; approve and deny with a remark; a read-only user sees no
 * operation; phone width. Screenshots go to test/artifacts/; with CONSOLE_DOC_IMAGES=1 rollout.png also to docs/images/.
 */
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { ADMIN } from '../helpers/server.js';
import {
  CREATOR, READER, createRollout, createTargets, getGroups, groupTargets, openAction, runDevice, runningRollout, setConfig, waitStatus,
} from '../api/rollouts/fixture.js';
import { ARTIFACTS, docImage } from './browser.js';
import { groupDone, nth, rolloutIdOf, seed, signedIn, useConsoleApp } from './rollout-fixture.js';

const ctx = useConsoleApp();

const statusOf = (page: Page) => page.locator('.page-head .status').first();

describe('console rollouts', () => {
  it('creates a rollout in the wizard, starts it and follows the devices live', async () => {
    const { app } = ctx;
    const { setName, setLabel } = await seed(app, 'ui');
    await createTargets(app, 'other', 2); // so the count of the filter differs from the count of all
    const { page, errors } = await signedIn(ctx, ADMIN);

    await page.getByRole('link', { name: 'Rollouts', exact: true }).click();
    await page.getByRole('button', { name: 'New rollout' }).click();
    // step 1: name, set (searched), filter with its live count
    await page.getByLabel('Name', { exact: true }).fill('firmware-2.1');
    await page.getByLabel('Search distribution set').fill(setName);
    await page.getByLabel('Distribution set', { exact: true }).selectOption({ label: setLabel });
    await page.getByLabel('Target filter query').fill('controllerid==ui-*');
    await expect.poll(() => page.getByText('20 matching targets').count()).toBe(1);
    await page.getByRole('button', { name: 'Next' }).click();
    // step 2: four equal groups
    await page.getByLabel('Number of groups').fill('4');
    await page.getByRole('button', { name: 'Next' }).click();
    // step 3: 100 % success threshold (the default the wizard offers), errors pause above 20 %
    await page.getByLabel('Success threshold (%)').fill('100');
    await page.getByRole('button', { name: 'Next' }).click();
    await page.getByRole('button', { name: 'Create rollout' }).click();

    await page.waitForURL(/#\/rollouts\/\d+$/);
    const id = rolloutIdOf(page.url());
    await expect.poll(() => statusOf(page).getAttribute('data-status'), { timeout: 15_000 }).toBe('ready');
    expect(await page.getByRole('progressbar', { name: /^Progress of group-/ }).count()).toBe(4);
    const groups = await getGroups(app, id);
    expect(groups.map((g) => [g.totalTargets, g.successCondition.expression])).toEqual([[5, '100'], [5, '100'], [5, '100'], [5, '100']]);

    await page.getByRole('button', { name: 'Start' }).click();
    await expect.poll(() => statusOf(page).getAttribute('data-status'), { timeout: 15_000 }).toBe('running');
    await expect.poll(() => page.getByRole('button', { name: 'Pause' }).count()).toBe(1);

    // live: a marker on window survives only if the page is never reloaded
    await page.evaluate('window.marker = 42');
    const first = await groupTargets(app, id, nth(groups, 0).id);
    expect(await groupDone(page, 'group-1')).toBe(0);
    await runDevice(app, nth(first, 0), 'success');
    await runDevice(app, nth(first, 1), 'success');
    await expect.poll(() => groupDone(page, 'group-1'), { timeout: 10_000 }).toBe(2);
    for (const device of first.slice(2)) await runDevice(app, device, 'success');
    await expect.poll(() => groupDone(page, 'group-1'), { timeout: 10_000 }).toBe(5);
    // 100 % reached: the next group runs
    await expect.poll(() => page.locator('[data-group="group-2"] .status').getAttribute('data-status'), { timeout: 10_000 }).toBe('running');
    const second = await groupTargets(app, id, nth(groups, 1).id);
    await runDevice(app, nth(second, 0), 'success');
    await runDevice(app, nth(second, 1), 'success');
    await runDevice(app, nth(second, 2), 'failure');
    await openAction(app, nth(second, 3));
    await expect.poll(() => groupDone(page, 'group-2'), { timeout: 10_000 }).toBe(3);
    expect(await page.getByRole('progressbar', { name: 'Progress of group-2' }).getAttribute('aria-valuetext'))
      .toBe('2 finished, 1 error, 2 running, 0 scheduled, 0 not started, 0 cancelled');
    expect(await page.evaluate('window.marker')).toBe(42);

    // which path carried the updates: the event stream, or the 2 s polling fallback
    const mode = await page.locator('.live-mode').getAttribute('data-mode');
    console.info(`rollout page updates came from: ${mode}`);
    expect(['stream', 'polling']).toContain(mode);

    await page.getByRole('button', { name: 'Show targets' }).first().click();
    await expect.poll(() => page.getByRole('table', { name: 'Targets of the group' }).getByRole('row').count()).toBe(6);

    await page.screenshot({ path: join(ARTIFACTS, 'rollout-running.png'), fullPage: true });
    await page.getByRole('button', { name: 'Hide targets' }).click();
    await page.mouse.move(0, 799);
    await page.evaluate('document.activeElement.blur()');
    await page.screenshot({ path: join(ARTIFACTS, 'rollout.png') });
    docImage('rollout');

    // pause, resume, and the next group started by hand (after its question)
    await page.getByRole('button', { name: 'Pause' }).click();
    await expect.poll(() => statusOf(page).getAttribute('data-status'), { timeout: 10_000 }).toBe('paused');
    await page.getByRole('button', { name: 'Resume' }).click();
    await expect.poll(() => statusOf(page).getAttribute('data-status'), { timeout: 10_000 }).toBe('running');
    await page.getByRole('button', { name: 'Trigger next group' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Trigger next group' }).click();
    await expect.poll(() => page.locator('[data-group="group-3"] .status').getAttribute('data-status'), { timeout: 10_000 }).toBe('running');
    expect((await getGroups(app, id)).map((g) => g.status)).toEqual(['finished', 'running', 'running', 'scheduled']);

    // the list: the row's bar shows the rollout's counts
    await page.getByRole('link', { name: 'Rollouts', exact: true }).click();
    const row = page.getByRole('progressbar', { name: 'Progress of firmware-2.1' });
    await expect.poll(() => row.getAttribute('aria-valuenow')).toBe('8');
    await page.screenshot({ path: join(ARTIFACTS, 'rollouts-list.png') });

    // phone width: the page lays out without sideways scrolling
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${app.url}/ui/#/rollouts/${id}`);
    await page.getByRole('progressbar', { name: 'Progress of group-2' }).waitFor();
    expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
    await page.screenshot({ path: join(ARTIFACTS, 'rollout-phone.png'), fullPage: true });
    const ready = { '/rollouts': 'Progress of firmware-2.1', '/rollouts/new': 'Basics' } as const;
    for (const [path, name] of [['/rollouts', 'rollouts-list-phone'], ['/rollouts/new', 'rollout-wizard-phone']] as const) {
      await page.goto(`${app.url}/ui/#${path}`);
      await page.getByText(ready[path]).or(page.getByRole('progressbar', { name: ready[path] })).first().waitFor();
      expect(await page.evaluate('document.documentElement.scrollWidth'), path).toBeLessThanOrEqual(390);
      await page.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage: true });
    }
    expect(errors).toEqual([]);
  }, 120_000);

  it('approves and denies a rollout waiting for approval, with a remark', async () => {
    const { app } = ctx;
    await seed(app, 'appr', 4);
    await setConfig(app, 'rollout.approval.enabled', true);
    const set = (await app.mgmt.get('/rest/v1/distributionsets?limit=1&sort=id:DESC')).json().content[0].id;
    const body = (name: string) => ({ name, distributionSetId: set, targetFilterQuery: 'controllerid==appr-*', amountGroups: 2 });
    const a = await createRollout(app, body('needs-approval-a'), CREATOR);
    const b = await createRollout(app, body('needs-approval-b'), CREATOR);
    await waitStatus(app, a.id, 'waiting_for_approval');
    await waitStatus(app, b.id, 'waiting_for_approval');
    const { page, errors } = await signedIn(ctx, ADMIN);

    await page.goto(`${app.url}/ui/#/rollouts/${a.id}`);
    await expect.poll(() => statusOf(page).getAttribute('data-status')).toBe('waiting_for_approval');
    expect(await page.getByRole('button', { name: 'Start' }).count()).toBe(0);
    await page.getByRole('button', { name: 'Approve' }).click();
    await page.getByLabel('Remark (optional)').fill('checked with the line manager');
    await page.getByRole('dialog').getByRole('button', { name: 'Approve' }).click();
    await expect.poll(() => statusOf(page).getAttribute('data-status'), { timeout: 10_000 }).toBe('ready');
    await expect.poll(() => page.getByText('by admin: checked with the line manager').count()).toBe(1);
    expect((await waitStatus(app, a.id, 'ready')).approvalRemark).toBe('checked with the line manager');
    await page.screenshot({ path: join(ARTIFACTS, 'rollout-approved.png') });

    await page.goto(`${app.url}/ui/#/rollouts/${b.id}`);
    await page.getByRole('button', { name: 'Deny' }).click();
    await page.getByLabel('Remark (optional)').fill('not in this maintenance window');
    await page.getByRole('dialog').getByRole('button', { name: 'Deny' }).click();
    await expect.poll(() => statusOf(page).getAttribute('data-status'), { timeout: 10_000 }).toBe('approval_denied');
    expect((await waitStatus(app, b.id, 'approval_denied')).approvalRemark).toBe('not in this maintenance window');
    expect(errors).toEqual([]);
  }, 60_000);

  it('shows a read-only user no operation and no create button', async () => {
    const { app } = ctx;
    const { setName } = await seed(app, 'ro', 2);
    const set = (await app.mgmt.get(`/rest/v1/distributionsets?q=name==${setName}`)).json().content[0].id;
    const any = await createRollout(app, { name: 'read-only-view', distributionSetId: set, targetFilterQuery: 'controllerid==ro-*', amountGroups: 2 });
    const { page, errors } = await signedIn(ctx, READER);
    // nothing the pages read may be refused to them (the set's name needs a repository permission)
    const refused: string[] = [];
    page.on('response', (r) => { if (r.status() === 403) refused.push(r.url()); });
    await page.goto(`${app.url}/ui/#/rollouts`);
    await page.getByRole('table', { name: 'Rollouts' }).getByRole('link').first().waitFor();
    expect(await page.getByRole('button', { name: 'New rollout' }).count()).toBe(0);
    await page.goto(`${app.url}/ui/#/rollouts/${any.id}`);
    await page.getByRole('progressbar', { name: 'Rollout progress' }).waitFor();
    expect(await page.locator('.page-head .actions button').count()).toBe(0);
    // the group targets need READ_TARGET too, which the reader holds
    expect(await page.getByRole('button', { name: 'Show targets' }).count()).toBeGreaterThan(0);
    expect(errors).toEqual([]);
    expect(refused).toEqual([]);
  }, 60_000);

  it('falls back to polling every 2 s when the event stream fails, follows the devices, and retries the failed target', async () => {
    const { app } = ctx;
    const { setName } = await seed(app, 'poll', 4);
    const set = (await app.mgmt.get(`/rest/v1/distributionsets?q=name==${setName}`)).json().content[0].id;
    await setConfig(app, 'rollout.approval.enabled', false);
    const r = await runningRollout(app, { name: 'polled', distributionSetId: set, targetFilterQuery: 'controllerid==poll-*', amountGroups: 1 });
    const { page } = await signedIn(ctx, ADMIN);
    await page.route('**/rest/v1/rollouts/*/events', (route) => route.fulfill({ status: 503, body: 'stream down' }));
    await page.goto(`${app.url}/ui/#/rollouts/${r.id}`);
    await expect.poll(() => page.locator('.live-mode').getAttribute('data-mode'), { timeout: 10_000 }).toBe('polling');
    expect(await groupDone(page, 'group-1')).toBe(0);
    await runDevice(app, 'poll-1', 'success');
    await runDevice(app, 'poll-2', 'failure');
    await expect.poll(() => groupDone(page, 'group-1'), { timeout: 10_000 }).toBe(2);
    expect(await page.getByRole('progressbar', { name: 'Progress of group-1' }).getAttribute('aria-valuetext'))
      .toBe('1 finished, 1 error, 2 running, 0 scheduled, 0 not started, 0 cancelled');

    // finished with one failure: retry makes a rollout over the failed target and opens it
    await runDevice(app, 'poll-3', 'success');
    await runDevice(app, 'poll-4', 'success');
    await expect.poll(() => statusOf(page).getAttribute('data-status'), { timeout: 10_000 }).toBe('finished');
    await page.getByRole('button', { name: 'Retry failed' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Retry failed' }).click();
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent(), { timeout: 10_000 }).toBe('polled_retry');
    const retry = await waitStatus(app, rolloutIdOf(page.url()), 'ready');
    expect([retry.targetFilterQuery, retry.totalTargets]).toEqual([`failedrollout==${r.id}`, 1]);
  }, 60_000);

  it('shows the server\'s 400 message in the wizard, and creates explicit groups once they cover every target', async () => {
    const { app } = ctx;
    const { setLabel } = await seed(app, 'grp', 6);
    const { page, errors } = await signedIn(ctx, ADMIN);
    await page.goto(`${app.url}/ui/#/rollouts/new`);
    await page.getByLabel('Name', { exact: true }).fill('explicit-groups');
    await page.getByLabel('Distribution set', { exact: true }).selectOption({ label: setLabel });
    // a query the server refuses: its message under the box, and the wizard does not go on
    await page.getByLabel('Target filter query').fill('controllerid=grp-*');
    await expect.poll(() => page.locator('.fiql-error').count()).toBe(1);
    await page.getByRole('button', { name: 'Next' }).click();
    await expect.poll(() => page.getByRole('alert').filter({ hasText: 'The target filter query is not valid' }).count()).toBe(1);
    await page.getByLabel('Target filter query').fill('controllerid==grp-*');
    await expect.poll(() => page.getByText('6 matching targets').count()).toBe(1);
    await page.getByRole('button', { name: 'Next' }).click();
    await page.getByLabel('Explicit groups').check();
    const group1 = page.getByRole('group', { name: 'Group 1' });
    await group1.getByLabel('Name').fill('canary');
    await group1.getByLabel('Target percentage').fill('50');
    for (let i = 0; i < 2; i++) await page.getByRole('button', { name: 'Next' }).click();
    await page.getByRole('button', { name: 'Create rollout' }).click();
    // half of the targets would be in no group: the server refuses, its message is shown as it is
    await expect.poll(() => page.getByRole('alert').textContent()).toContain("Rollout groups don't match all targets");
    expect(page.url()).toMatch(/#\/rollouts\/new$/);

    for (let i = 0; i < 2; i++) await page.getByRole('button', { name: 'Back' }).click();
    await page.getByRole('button', { name: 'Add group' }).click();
    const group2 = page.getByRole('group', { name: 'Group 2' });
    await group2.getByLabel('Name').fill('everyone else');
    await group2.getByLabel('Target percentage').fill('100');
    await page.screenshot({ path: join(ARTIFACTS, 'rollout-wizard-groups.png'), fullPage: true });
    for (let i = 0; i < 2; i++) await page.getByRole('button', { name: 'Next' }).click();
    await page.getByLabel('Action type').selectOption('timeforced');
    await page.screenshot({ path: join(ARTIFACTS, 'rollout-wizard-deployment.png'), fullPage: true });
    await page.getByLabel('Action type').selectOption('forced');
    await page.getByRole('button', { name: 'Create rollout' }).click();
    await page.waitForURL(/#\/rollouts\/\d+$/);
    const groups = await getGroups(app, rolloutIdOf(page.url()));
    expect(groups.map((g) => [g.name, g.totalTargets])).toEqual([['canary', 3], ['everyone else', 3]]);
    // keyboard: the group's targets open with Enter on its focused button
    await page.getByRole('button', { name: 'Show targets of canary' }).focus();
    await page.keyboard.press('Enter');
    await expect.poll(() => page.getByRole('button', { name: 'Hide targets of canary' }).getAttribute('aria-expanded')).toBe('true');
    await expect.poll(() => page.getByRole('table', { name: 'Targets of the group' }).getByRole('row').count()).toBe(4);
    expect(errors).toEqual([]);
  }, 60_000);
});
