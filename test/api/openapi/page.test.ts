/**
 * The API reference page at /rest/v1/docs: HTML served by peregrine itself, naming the operations
 * grouped by tag, with the document embedded (no second request, nothing from another origin), and,
 * in Chromium, an opened operation showing its parameters, request body and replies.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, type App } from '../../helpers/app.js';
import { launchBrowser, openPage } from '../../console/browser.js';

describe('API reference page', () => {
  let app: App;
  let browser: Browser;

  beforeAll(async () => {
    app = await startApp('memory');
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser.close();
  });

  it('is HTML naming the operations by tag, with the document embedded and nothing from elsewhere', async () => {
    const res = await app.anon.get('/rest/v1/docs');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const html = res.text;
    for (const text of ['<h2>Targets</h2>', '<h2>DDI Root Controller</h2>', '<code>/rest/v1/targets</code>', 'List targets',
      '<code>/{tenant}/controller/v1/{controllerId}/deploymentBase/{actionId}</code>', 'data-id="postRollouts"']) {
      expect(html).toContain(text);
    }
    // no script, style, font or image from another origin
    expect(html).not.toMatch(/(src|href)=["']?(https?:)?\/\//);
    expect(html).not.toMatch(/@import|url\(/);
    const embedded = /<script type="application\/json" id="openapi">([\s\S]*?)<\/script>/.exec(html)?.[1] ?? '';
    expect(JSON.parse(embedded)).toEqual((await app.anon.get('/rest/v1/openapi.json')).json());
  });

  it('renders an operation when opened and filters the list, in Chromium, with no request elsewhere', async () => {
    const watched = await openPage(browser);
    const requests: string[] = [];
    watched.page.on('request', (r) => { requests.push(r.url()); });
    try {
      await watched.page.goto(`${app.url}/rest/v1/docs#postTargets`);
      const op = watched.page.locator('details.op[data-id="postTargets"]');
      await op.locator('.body h4').first().waitFor();
      const text = await op.locator('.body').innerText();
      expect(text).toContain('Request body');
      expect(text).toContain('controllerId');
      expect(text).toContain('required');
      expect(text).toContain('MgmtTarget');
      expect(text).toMatch(/basicAuth or bearerAuth or sessionCookie/);
      // the worked example: the concrete request with its body, and the reply the server gave it
      expect(text).toContain('Example: POST /rest/v1/targets');
      expect(text).toContain('"controllerId": "device-01"');
      expect(text).toContain('Example: POST /rest/v1/targets -> 201');
      expect(text).toContain('"securityToken"');
      await watched.screenshot('api-reference-operation');
      await watched.page.locator('#filter').fill('deploymentBase feedback');
      const visible = await watched.page.locator('details.op:not(.hidden)').count();
      expect(visible).toBe(1);
      expect(watched.errors).toEqual([]);
      expect(requests.filter((u) => !u.startsWith(app.url))).toEqual([]);
      await watched.screenshot('api-reference-filtered');
    } finally {
      await watched.close();
    }
  });
});
