/**
 * The console's target filter page in a real browser: create with the live count, auto-assignment
 * of a set (and its removal), edit, delete, each checked against the Management API.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ADMIN } from '../helpers/server.js';
import { createTargets } from '../api/rollouts/fixture.js';
import { ARTIFACTS } from './browser.js';
import { seed, signedIn, useConsoleApp } from './rollout-fixture.js';

const ctx = useConsoleApp();

describe('console target filters', () => {
  it('creates a filter with the live count, auto-assigns a set, edits and deletes it', async () => {
    const { app } = ctx;
    const { setLabel } = await seed(app, 'tf', 5);
    await createTargets(app, 'other', 2);
    const setId = (await app.mgmt.get('/rest/v1/distributionsets?limit=1&sort=id:DESC')).json().content[0].id;
    const { page, errors } = await signedIn(ctx, ADMIN);
    const filterNamed = async (name: string) => (await app.mgmt.get(`/rest/v1/targetfilters?q=name==${name}`)).json().content[0];

    await page.getByRole('link', { name: 'Target filters', exact: true }).click();
    await page.getByRole('button', { name: 'New filter' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel('Name').fill('line-tf');
    await dialog.getByLabel('Query (FIQL)').fill('controllerid==tf-*');
    await expect.poll(() => dialog.getByText('5 matching targets').count()).toBe(1);
    await dialog.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => page.getByRole('cell', { name: 'line-tf', exact: true }).count()).toBe(1);
    expect((await filterNamed('line-tf')).query).toBe('controllerid==tf-*');
    await expect.poll(() => page.getByText('1 matching filters').count()).toBe(1);

    await page.getByRole('button', { name: 'Auto-assignment of line-tf' }).click();
    await dialog.getByLabel('Distribution set to assign', { exact: true }).selectOption({ label: setLabel });
    await dialog.getByLabel('Action type').selectOption('soft');
    await dialog.getByLabel('Weight (optional)').fill('300');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => page.getByText(`${setLabel} (soft)`).count()).toBe(1);
    expect(await filterNamed('line-tf')).toMatchObject({ autoAssignDistributionSet: setId, autoAssignActionType: 'soft', autoAssignWeight: 300 });
    await page.screenshot({ path: join(ARTIFACTS, 'target-filters.png') });

    await page.getByRole('button', { name: 'Edit line-tf' }).click();
    await dialog.getByLabel('Query (FIQL)').fill('controllerid==tf-1');
    await expect.poll(() => dialog.getByText('1 matching targets').count()).toBe(1);
    await dialog.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => page.getByRole('cell', { name: 'controllerid==tf-1', exact: true }).count()).toBe(1);

    await page.getByRole('button', { name: 'Auto-assignment of line-tf' }).click();
    await dialog.getByRole('button', { name: 'Remove auto-assignment' }).click();
    await expect.poll(() => page.getByText(`${setLabel} (soft)`).count()).toBe(0);
    expect((await filterNamed('line-tf')).autoAssignDistributionSet).toBeNull();

    await page.getByRole('button', { name: 'Delete line-tf' }).click();
    await dialog.getByRole('button', { name: 'Delete' }).click();
    await expect.poll(() => page.getByRole('cell', { name: 'line-tf', exact: true }).count()).toBe(0);
    expect(await filterNamed('line-tf')).toBeUndefined();
    expect(errors).toEqual([]);
  }, 60_000);
});
