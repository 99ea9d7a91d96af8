/**
 * The console's rollout and target filter tests: the server (memory store, the rollout suites' app:
 * DDI gateway token on, users with and without APPROVE_ROLLOUT) and chromium (browser.ts) for the
 * file, a signed-in page, and the seed (targets, a complete distribution set).
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, expect } from 'vitest';
import { createSet, createTargets, startRolloutApp, type RolloutApp } from '../api/rollouts/fixture.js';
import { launchBrowser, openPage, signIn, type WatchedPage } from './browser.js';

export interface ConsoleApp {
  readonly app: RolloutApp;
  readonly browser: Browser;
}

/** Chromium and the server, started before the file's tests; the browser closes after them. */
export function useConsoleApp(): ConsoleApp {
  const ctx = {} as { app: RolloutApp; browser: Browser };
  beforeAll(async () => {
    ctx.browser = await launchBrowser();
    ctx.app = await startRolloutApp('memory');
  });
  afterAll(async () => {
    await ctx.browser.close();
  });
  return ctx;
}

/** A new page at 1280x800 signed in to the console as `user`. */
export async function signedIn({ app, browser }: ConsoleApp, user: readonly [string, string]): Promise<WatchedPage> {
  const watched = await openPage(browser);
  await signIn(watched.page, app.url, user[0], user[1]);
  await watched.page.getByRole('navigation', { name: 'Main' }).waitFor();
  return watched;
}

/** `count` targets `<prefix>-1..count` and a complete distribution set; returns the set's name and `name version`. */
export async function seed(app: RolloutApp, prefix: string, count = 20): Promise<{ setName: string; setLabel: string }> {
  await createTargets(app, prefix, count);
  const set = await createSet(app);
  const res = await app.mgmt.get(`/rest/v1/distributionsets/${set.id}`);
  expect(res.status, res.text).toBe(200);
  return { setName: res.json().name, setLabel: `${res.json().name} ${res.json().version}` };
}

/** The rollout id of the page showing it (`#/rollouts/7`). */
export function rolloutIdOf(url: string): number {
  const id = Number(/#\/rollouts\/(\d+)/.exec(url)?.[1]);
  expect(Number.isInteger(id) && id > 0, url).toBe(true);
  return id;
}

/** `list[i]`, failing the test when the list is shorter. */
export function nth<T>(list: readonly T[], i: number): T {
  const item = list[i];
  if (item === undefined) throw new Error(`expected at least ${i + 1} items, got ${list.length}`);
  return item;
}

/** aria-valuenow (targets done) of a group's progress bar. */
export async function groupDone(page: Page, group: string): Promise<number> {
  return Number(await page.getByRole('progressbar', { name: `Progress of ${group}` }).getAttribute('aria-valuenow'));
}
