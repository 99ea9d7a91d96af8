/**
 * Webhooks' bad input (issue 25): a URL that is not http(s), a short secret, an unknown event kind,
 * another tenant's webhook and its dead letters (404), missing permissions (403); nothing is created
 * by a refused request.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { STORES, storeOptions, tenantFor, withAuth } from '../../helpers/app.js';
import { ADMIN_HASH, http, startTestServer } from '../../helpers/server.js';
import { ERR, expectError } from '../rollouts/fixture.js';

const WEBHOOKS = '/rest/v1/webhooks';
const GOOD = { name: 'ok', url: 'https://example.com/hook', secret: 'sixteen-chars-secret' };

describe.each(STORES)('webhook bad input on the %s store', (kind) => {
  let mine: ReturnType<typeof http>;
  let theirs: ReturnType<typeof http>;
  let reader: ReturnType<typeof http>;
  let nobody: ReturnType<typeof http>;
  beforeAll(async () => {
    const a = tenantFor(kind, 'WA', 'A');
    const b = tenantFor(kind, 'WB', 'B');
    const admin = { username: 'admin', password: ADMIN_HASH, permissions: ['ALL'] };
    const server = await startTestServer({
      tenants: [
        {
          name: a, users: [
            admin,
            { username: 'reader', password: ADMIN_HASH, permissions: ['READ_TENANT_CONFIGURATION'] },
            { username: 'nobody', password: ADMIN_HASH, permissions: ['READ_TARGET', 'READ_ROLLOUT'] },
          ],
        },
        { name: b, users: [admin] },
      ],
    }, storeOptions(kind));
    const client = http(server.url);
    // the same user name in two tenants: TENANT\user names the tenant
    mine = withAuth(client, [`${a}\\admin`, 'admin']);
    theirs = withAuth(client, [`${b}\\admin`, 'admin']);
    reader = withAuth(client, [`${a}\\reader`, 'admin']);
    nobody = withAuth(client, [`${a}\\nobody`, 'admin']);
  });

  it.each([
    ['ftp://example.com/hook', 'ftp://example.com/hook', 'http'],
    ['javascript:alert(1)', 'javascript:alert(1)', 'http'],
    ['file:///etc/passwd', 'file:///etc/passwd', 'http'],
    ['not a url', 'not a url', 'http'],
    ['/relative/hook', '/relative/hook', 'http'],
    ['of 2,100 characters', `https://example.com/${'x'.repeat(2100)}`, '2048'],
  ])('refuses the URL %s with 400 naming url', async (_label, url, mentions) => {
    const res = await mine.post(WEBHOOKS, { json: { ...GOOD, name: `bad-${Math.random()}`, url } });
    expectError(res, 400, ERR.body, 'url');
    expect(res.json().message.toLowerCase()).toContain(mentions);
  });

  it.each([
    [{ ...GOOD, secret: 'short' }, 'secret'],
    [{ ...GOOD, secret: undefined }, 'secret'],
    [{ ...GOOD, kinds: ['rollout', 'deployment'] }, 'kinds'],
    [{ ...GOOD, kinds: [] }, 'kinds'],
    [{ ...GOOD, name: '' }, 'name'],
    [{ ...GOOD, enabled: 'maybe' }, 'enabled'],
  ])('refuses %j with 400 naming the field', async (body, field) => {
    expectError(await mine.post(WEBHOOKS, { json: body }), 400, ERR.body, field);
  });

  it('creates nothing for a refused request, and refuses a bad URL on update too', async () => {
    const before = (await mine.get(WEBHOOKS)).json().total;
    await mine.post(WEBHOOKS, { json: { ...GOOD, url: 'gopher://x' } });
    expect((await mine.get(WEBHOOKS)).json().total).toBe(before);
    const made = await mine.post(WEBHOOKS, { json: { ...GOOD, name: 'for-update' } });
    expect(made.status, made.text).toBe(201);
    expectError(await mine.put(`${WEBHOOKS}/${made.json().id}`, { json: { url: 'ftp://x/y' } }), 400, ERR.body, 'url');
    expect((await mine.get(`${WEBHOOKS}/${made.json().id}`)).json().url).toBe(GOOD.url);
  });

  it("answers 404 for another tenant's webhook and its dead letters", async () => {
    // ids count per tenant: take one of theirs that is no id of mine
    const ours = new Set((await mine.get(WEBHOOKS)).json().content.map((w: { id: number }) => w.id));
    let id = 0;
    for (let i = 0; i <= ours.size && (id === 0 || ours.has(id)); i++) {
      const made = await theirs.post(WEBHOOKS, { json: { ...GOOD, name: `theirs-${i}` } });
      expect(made.status, made.text).toBe(201);
      id = made.json().id;
    }
    expect(ours.has(id)).toBe(false);
    expectError(await mine.get(`${WEBHOOKS}/${id}`), 404, ERR.notFound);
    expectError(await mine.put(`${WEBHOOKS}/${id}`, { json: { enabled: false } }), 404, ERR.notFound);
    expectError(await mine.delete(`${WEBHOOKS}/${id}`), 404, ERR.notFound);
    expectError(await mine.get(`${WEBHOOKS}/${id}/deadletters`), 404, ERR.notFound);
    expectError(await mine.post(`${WEBHOOKS}/${id}/deadletters/1/redeliver`), 404, ERR.notFound);
    expect((await theirs.get(`${WEBHOOKS}/${id}`)).json()).toMatchObject({ enabled: true });
    expect((await mine.get(WEBHOOKS)).json().content.map((w: { name: string }) => w.name)).not.toContain('theirs-0');
  });

  it('answers 404 for a dead letter that is not one', async () => {
    const made = await mine.post(WEBHOOKS, { json: { ...GOOD, name: 'no-letters' } });
    const id = made.json().id;
    expectError(await mine.get(`${WEBHOOKS}/${id}/deadletters/999999`), 404, ERR.notFound);
    expectError(await mine.delete(`${WEBHOOKS}/${id}/deadletters/999999`), 404, ERR.notFound);
    expect((await mine.get(`${WEBHOOKS}/${id}/deadletters`)).json()).toMatchObject({ total: 0, content: [] });
  });

  it('refuses a webhook beyond quotas.maxWebhooksPerTenant', async () => {
    const tenant = tenantFor(kind, 'WQ', 'Q');
    const server = await startTestServer({
      tenants: [{ name: tenant, users: [{ username: 'admin', password: ADMIN_HASH, permissions: ['ALL'] }] }],
      quotas: { maxWebhooksPerTenant: 1 },
    }, storeOptions(kind));
    const admin = withAuth(http(server.url), ['admin', 'admin']);
    expect((await admin.post(WEBHOOKS, { json: GOOD })).status).toBe(201);
    expectError(await admin.post(WEBHOOKS, { json: { ...GOOD, name: 'second' } }), 403, ERR.quota, 'maxWebhooksPerTenant');
    expect((await admin.get(WEBHOOKS)).json().total).toBe(1);
  });

  it('needs READ_TENANT_CONFIGURATION to read and TENANT_CONFIGURATION to change', async () => {
    expect((await reader.get(WEBHOOKS)).status).toBe(200);
    expectError(await reader.post(WEBHOOKS, { json: { ...GOOD, name: 'by-reader' } }), 403, ERR.permission);
    expectError(await nobody.get(WEBHOOKS), 403, ERR.permission);
  });
});
