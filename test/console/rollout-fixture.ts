/**
 * The console's rollout test: the server (memory store, the rollout suites' app: DDI gateway token on,
 * users with and without APPROVE_ROLLOUT), Debian's chromium through playwright-core, a signed-in
 * page that records console errors, and the seed (targets, a complete distribution set).
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { expect } from 'vitest';
import { createSet, createTargets, type RolloutApp } from '../api/rollouts/fixture.js';

export const ARTIFACTS = join(import.meta.dirname, '..', 'artifacts');
export const DOC_IMAGES = join(import.meta.dirname, '..', '..', 'docs', 'images');

export function launch(): Promise<Browser> {
  mkdirSync(ARTIFACTS, { recursive: true });
  return chromium.launch({ executablePath: '/usr/bin/chromium', headless: true, args: ['--no-sandbox'] });
}

export interface ConsolePage {
  readonly page: Page;
  /** Console errors and uncaught exceptions seen so far. */
  readonly errors: string[];
}

/** A new page at 1280x800 signed in to the console as `user`. */
export async function signedIn(browser: Browser, app: RolloutApp, user: readonly [string, string]): Promise<ConsolePage> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  page.on('pageerror', (e) => { errors.push(String(e)); });
  await page.goto(`${app.url}/ui/`);
  await page.getByLabel('Username').fill(user[0]);
  await page.getByLabel('Password').fill(user[1]);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('navigation', { name: 'Main' }).waitFor();
  // what the shell logged before the session existed (GET /ui/api/session answers 401) is not this test's
  errors.length = 0;
  return { page, errors };
}

/** 20 targets `<prefix>-1..20` and a complete distribution set; returns the set's name and `name version`. */
export async function seed(app: RolloutApp, prefix: string, count = 20): Promise<{ setName: string; setLabel: string }> {
  await createTargets(app, prefix, count);
  const set = await createSet(app);
  const res = await app.mgmt.get(`/rest/v1/distributionsets/${set.id}`);
  expect(res.status, res.text).toBe(200);
  return { setName: res.json().name, setLabel: `${res.json().name} ${res.json().version}` };
}

/** The rollout id of the page showing it (`#/rollouts/7`). */
export function rolloutIdOf(page: Page): number {
  const id = Number(/#\/rollouts\/(\d+)/.exec(page.url())?.[1]);
  expect(Number.isInteger(id) && id > 0, page.url()).toBe(true);
  return id;
}

/** aria-valuenow (targets done) of a group's progress bar. */
export async function groupDone(page: Page, group: string): Promise<number> {
  return Number(await page.getByRole('progressbar', { name: `Progress of ${group}` }).getAttribute('aria-valuenow'));
}

/** `list[i]`, failing the test when the list is shorter. */
export function nth<T>(list: readonly T[], i: number): T {
  const item = list[i];
  if (item === undefined) throw new Error(`expected at least ${i + 1} items, got ${list.length}`);
  return item;
}
