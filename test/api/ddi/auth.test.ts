import { describe, expect, it } from 'vitest';
import { STORES, tenantFor } from '../../helpers/app.js';
import { seedDistributionSet, seedTarget } from '../../helpers/seed.js';
import { assign, GATEWAY, GATEWAY_KEY, startDdiApp, targetOf } from './fixture.js';

const UNAUTHORIZED = 'hawkbit.server.error.unauthorized';

describe.each(STORES)('DDI authentication, %s store', (kind) => {
  describe('target token', () => {
    it('accepts the target its own token and refuses wrong, foreign and absent tokens', async () => {
      const app = await startDdiApp(kind);
      const a = await seedTarget(app, 'tt-a');
      const b = await seedTarget(app, 'tt-b');
      expect((await app.device('tt-a', { authorization: `TargetToken ${a.securityToken}` }).get()).status).toBe(200);
      expect((await app.device('tt-a', { authorization: `targettoken ${a.securityToken}` }).get()).status).toBe(200);
      const wrong = await app.device('tt-a', { authorization: `TargetToken ${a.securityToken}x` }).get();
      expect(wrong.status).toBe(401);
      expect(wrong.json().errorCode).toBe(UNAUTHORIZED);
      expect(wrong.text).not.toContain(a.securityToken);
      expect((await app.device('tt-b', { authorization: `TargetToken ${a.securityToken}` }).get()).status).toBe(401);
      expect((await app.device('tt-b', {}).get()).status).toBe(401);
      expect((await app.device('tt-b', { authorization: `TargetToken ${b.securityToken}` }).get()).status).toBe(200);
    });

    it('never registers an unknown target', async () => {
      const app = await startDdiApp(kind);
      const res = await app.device('tt-new', { authorization: 'TargetToken abcdefabcdefabcdefabcdefabcdefab' }).get();
      expect(res.status).toBe(401);
      await expect(targetOf(app, 'tt-new')).rejects.toThrow('no target');
    });

    it('is refused when the tenant or the system switch is off', async () => {
      const tenantOff = await startDdiApp(kind, { tenantConfig: { 'authentication.targettoken.enabled': false } });
      const t1 = await seedTarget(tenantOff, 'tt-off');
      expect((await tenantOff.device('tt-off', { authorization: `TargetToken ${t1.securityToken}` }).get()).status).toBe(401);
      const systemOff = await startDdiApp(kind, { auth: { targetToken: false } });
      const t2 = await seedTarget(systemOff, 'tt-off');
      expect((await systemOff.device('tt-off', { authorization: `TargetToken ${t2.securityToken}` }).get()).status).toBe(401);
    });
  });

  describe('gateway token', () => {
    it('acts for any target of the tenant and registers unknown ones', async () => {
      const app = await startDdiApp(kind);
      await seedTarget(app, 'gw-known');
      expect((await app.device('gw-known').get()).status).toBe(200);
      expect((await targetOf(app, 'gw-known')).updateStatus).toBe('registered'); // unknown -> registered at its first poll
      expect((await app.device('gw-new').get()).status).toBe(200);
      expect((await targetOf(app, 'gw-new')).updateStatus).toBe('registered');
      expect((await app.device('gw-new', { authorization: `GatewayToken ${GATEWAY_KEY}-not` }).get()).status).toBe(401);
      // confirmationBase registers too
      const confirm = await app.device('gw-confirm').get('/confirmationBase');
      expect(confirm.status).toBe(200);
      expect(confirm.json().autoConfirm).toEqual({ active: false, activatedAt: 0 });
      expect((await targetOf(app, 'gw-confirm')).updateStatus).toBe('registered');
      // a known device on the other endpoints; an unknown one gets 404 there, after authenticating
      expect((await app.device('gw-nobody').get('/deploymentBase/1')).json().errorCode).toBe('hawkbit.server.error.repo.entityNotFound');
      await expect(targetOf(app, 'gw-nobody')).rejects.toThrow('no target');
    });

    it('is refused when switched off in the tenant or the system, and on another tenant', async () => {
      const tenantOff = await startDdiApp(kind, { tenantConfig: { 'authentication.gatewaytoken.enabled': false } });
      expect((await tenantOff.device('gw-x').get()).status).toBe(401);
      // gateway mode on without a key (a blank key is refused, so this tenant has none)
      const keyless = tenantFor(kind, 'K', 'KEYLESS');
      const noKey = await startDdiApp(kind, { otherTenant: { name: keyless, config: { 'authentication.gatewaytoken.enabled': true } } });
      for (const authorization of ['GatewayToken ', `GatewayToken ${GATEWAY_KEY}`]) {
        expect((await noKey.anon.get(`/${keyless}/controller/v1/gw-x`, { headers: { authorization } })).status).toBe(401);
      }
      const systemOff = await startDdiApp(kind, { auth: { gatewayToken: false } });
      expect((await systemOff.device('gw-x').get()).status).toBe(401);

      const other = tenantFor(kind, 'B', 'OTHER');
      const two = await startDdiApp(kind, {
        otherTenant: { name: other, config: { 'authentication.gatewaytoken.enabled': true, 'authentication.gatewaytoken.key': 'gw-of-b' } },
      });
      const onB = (key: string) => two.anon.get(`/${other}/controller/v1/gw-x`, { headers: { authorization: `GatewayToken ${key}` } });
      expect((await onB(GATEWAY_KEY)).status).toBe(401);
      expect((await onB('gw-of-b')).status).toBe(200);
      expect((await two.anon.get(`/${two.tenant}/controller/v1/gw-x`, { headers: { authorization: 'GatewayToken gw-of-b' } })).status).toBe(401);
    });
  });

  describe('anonymous', () => {
    it('serves and registers devices without credentials when the system allows it; downloads need the tenant key too', async () => {
      const app = await startDdiApp(kind, { auth: { anonymous: true } });
      const dev = app.device('anon-1', {});
      expect((await dev.get()).status).toBe(200);
      expect((await targetOf(app, 'anon-1')).updateStatus).toBe('registered');
      // credentials that are not accepted fall back to anonymous access, as in hawkBit's filter chain
      expect((await app.device('anon-1', { authorization: 'GatewayToken wrong' }).get()).status).toBe(200);
      const seeded = await seedDistributionSet(app);
      await assign(app, 'anon-1', seeded.ds.id);
      const file = `/softwaremodules/${seeded.module.id}/artifacts/image.bin`;
      const refused = await dev.get(file);
      expect(refused.status).toBe(401);
      expect(refused.json().message).toContain('Anonymous artifact download');
      expect((await dev.get(`${file}.MD5SUM`)).status).toBe(401);
      // an authenticated device downloads regardless
      expect((await app.device('anon-1').get(file)).status).toBe(200);

      const open = await startDdiApp(kind, { auth: { anonymous: true }, tenantConfig: { 'anonymous.download.enabled': true } });
      const dev2 = open.device('anon-2', {});
      await dev2.get();
      const s2 = await seedDistributionSet(open);
      await assign(open, 'anon-2', s2.ds.id);
      const ok = await dev2.get(`/softwaremodules/${s2.module.id}/artifacts/image.bin`);
      expect(ok.status).toBe(200);
    });

    it('is refused without credentials when the system switch is off (the default)', async () => {
      const app = await startDdiApp(kind);
      const res = await app.device('anon-3', {}).get();
      expect(res.status).toBe(401);
      expect(res.json().message).toContain('Authentication required');
      await expect(targetOf(app, 'anon-3')).rejects.toThrow('no target');
    });
  });

  describe('certificate via a trusted reverse proxy', () => {
    const cert = (cn: string, hashHeader = 'x-ssl-issuer-hash-1', hash = 'DEF456') => ({ 'x-ssl-client-cn': cn, [hashHeader]: hash });
    const authority = { 'authentication.header.authority': 'abc123, def456' };

    it('accepts a common name equal to the controller id and a known issuer hash, and registers the target', async () => {
      const app = await startDdiApp(kind, { trustedProxies: ['127.0.0.1'], tenantConfig: authority });
      expect((await app.device('cert-1', cert('cert-1')).get()).status).toBe(200);
      expect((await targetOf(app, 'cert-1')).updateStatus).toBe('registered');
      expect((await app.device('cert-1', { ...cert('cert-1', 'x-ssl-issuer-hash-1', 'zzz'), 'x-ssl-issuer-hash-2': 'abc123' }).get()).status).toBe(200);
      expect((await app.device('cert-1', cert('cert-1', 'x-ssl-issuer-hash', 'zzz, abc123')).get()).status).toBe(200);
      // read as hawkBit reads them: -0 or -1 onwards up to the first gap, so a proxy that clears -2 decides alone
      expect((await app.device('cert-1', cert('cert-1', 'x-ssl-issuer-hash-3', 'abc123')).get()).status).toBe(401);
      expect((await app.device('cert-1', { ...cert('cert-1', 'x-ssl-issuer-hash-1', 'zzz'), 'x-ssl-issuer-hash-3': 'abc123' }).get()).status).toBe(401);
      expect((await app.device('cert-1', cert('cert-2')).get()).status).toBe(401);
      expect((await app.device('cert-1', cert('cert-1', 'x-ssl-issuer-hash-1', 'ffff')).get()).status).toBe(401);
      expect((await app.device('cert-1', { 'x-ssl-client-cn': 'cert-1' }).get()).status).toBe(401);
    });

    it('is refused from an untrusted peer, and when the tenant or the system switch is off', async () => {
      const untrusted = await startDdiApp(kind, { tenantConfig: authority });
      expect((await untrusted.device('cert-1', cert('cert-1')).get()).status).toBe(401);
      const tenantOff = await startDdiApp(kind, { trustedProxies: ['127.0.0.1'], tenantConfig: { ...authority, 'authentication.header.enabled': false } });
      expect((await tenantOff.device('cert-1', cert('cert-1')).get()).status).toBe(401);
      const systemOff = await startDdiApp(kind, { trustedProxies: ['127.0.0.1'], tenantConfig: authority, auth: { certificate: false } });
      expect((await systemOff.device('cert-1', cert('cert-1')).get()).status).toBe(401);
      const noAuthorities = await startDdiApp(kind, { trustedProxies: ['127.0.0.1'] });
      expect((await noAuthorities.device('cert-1', cert('cert-1')).get()).status).toBe(401);
    });
  });

  describe("certificate via a trusted reverse proxy, hawkBit 1.x's header names", () => {
    const cert = (id: string, authorityHeader = 'x-authority-1', authority = 'DEF456') => ({ 'x-controller-id': id, [authorityHeader]: authority });
    const authority = { 'authentication.header.authority': 'abc123; def456' };

    it('reads them only when switched on: a proxy set up before 1.x would pass a client\'s own X-Controller-Id', async () => {
      const old = await startDdiApp(kind, { trustedProxies: ['127.0.0.1'], tenantConfig: authority });
      const refused = await old.device('cert-n0', cert('cert-n0')).get();
      expect(refused.status).toBe(401);
      expect(refused.json().message).toContain('Authentication required');
      const only1x = await startDdiApp(kind, { trustedProxies: ['127.0.0.1'], tenantConfig: authority, auth: { certificateHeaders: '1.x' } });
      expect((await only1x.device('cert-n0', cert('cert-n0')).get()).status).toBe(200);
      expect((await only1x.device('cert-n0', { 'x-ssl-client-cn': 'cert-n0', 'x-ssl-issuer-hash-1': 'abc123' }).get()).status).toBe(401);
    });

    it('accepts X-Controller-Id equal to the controller id with a known X-Authority, read as hawkBit reads them', async () => {
      const app = await startDdiApp(kind, { trustedProxies: ['127.0.0.1'], tenantConfig: authority, auth: { certificateHeaders: 'both' } });
      expect((await app.device('cert-n1', cert('cert-n1')).get()).status).toBe(200);
      expect((await targetOf(app, 'cert-n1')).updateStatus).toBe('registered');
      expect((await app.device('cert-n1', cert('cert-n1', 'x-authority', 'zzz;ABC123')).get()).status).toBe(200);
      expect((await app.device('cert-n1', cert('cert-n1', 'x-authority-0', 'abc123')).get()).status).toBe(200);
      expect((await app.device('cert-n1', { ...cert('cert-n1', 'x-authority-1', 'zzz'), 'x-authority-2': 'abc123' }).get()).status).toBe(200);
      // up to the first gap only, and the bare name alone when present
      expect((await app.device('cert-n1', { ...cert('cert-n1', 'x-authority-1', 'zzz'), 'x-authority-3': 'abc123' }).get()).status).toBe(401);
      expect((await app.device('cert-n1', { ...cert('cert-n1', 'x-authority', 'zzz'), 'x-authority-1': 'abc123' }).get()).status).toBe(401);
      expect((await app.device('cert-n1', cert('cert-n2')).get()).status).toBe(401);
      expect((await app.device('cert-n1', cert('cert-n1', 'x-authority-1', 'ffff')).get()).status).toBe(401);
      expect((await app.device('cert-n1', { 'x-controller-id': 'cert-n1' }).get()).status).toBe(401);
      // each generation's id goes with its own authorities
      expect((await app.device('cert-n1', { 'x-controller-id': 'cert-n1', 'x-ssl-issuer-hash-1': 'abc123' }).get()).status).toBe(401);
      expect((await app.device('cert-n1', { 'x-ssl-client-cn': 'cert-n1', 'x-authority-1': 'abc123' }).get()).status).toBe(401);
      // a proxy sending both generations (deploy/nginx.conf) is accepted
      expect((await app.device('cert-n1', { ...cert('cert-n1'), 'x-ssl-client-cn': 'cert-n1', 'x-ssl-issuer-hash-1': 'def456' }).get()).status).toBe(200);
    });

    it('is forged from an untrusted peer: refused, and the target is not registered', async () => {
      const untrusted = await startDdiApp(kind, { trustedProxies: ['10.9.9.9'], tenantConfig: authority });
      const res = await untrusted.device('cert-n3', { ...cert('cert-n3'), 'x-authority': 'def456', 'x-authority-0': 'def456' }).get();
      expect(res.status).toBe(401);
      expect(res.json().message).toContain('Authentication required');
      await expect(targetOf(untrusted, 'cert-n3')).rejects.toThrow('no target');
      const off = await startDdiApp(kind, { trustedProxies: ['127.0.0.1'], tenantConfig: authority, auth: { certificate: false, certificateHeaders: 'both' } });
      expect((await off.device('cert-n3', cert('cert-n3')).get()).status).toBe(401);
    });
  });

  describe('tenant and controller id', () => {
    it('answers 404 for an unknown tenant and accepts the tenant in any case', async () => {
      const app = await startDdiApp(kind);
      const unknown = await app.anon.get('/NO-SUCH-TENANT/controller/v1/dev-1', { headers: GATEWAY });
      expect(unknown.status).toBe(404);
      expect(unknown.json().errorCode).toBe('hawkbit.server.error.repo.entityNotFound');
      const lower = app.tenant.toLowerCase();
      const res = await app.anon.get(`/${lower}/controller/v1/dev-case`, { headers: GATEWAY });
      expect(res.status).toBe(200);
      expect(res.json()._links.configData.href).toBe(`${app.url}/${lower}/controller/v1/dev-case/configData`);
      expect((await targetOf(app, 'dev-case')).controllerId).toBe('dev-case');
    });

    it.each(['dev%201', 'dev%09x', 'dev%01x', `${'x'.repeat(257)}`])('refuses the controller id %s with 400', async (cid) => {
      const app = await startDdiApp(kind);
      const res = await app.anon.get(`/${app.tenant}/controller/v1/${cid}`, { headers: GATEWAY });
      expect(res.status).toBe(400);
      expect(res.json().message).toContain('controllerId');
    });

    it.each([['dev$1', 'dev$1'], ['sensor(1)', 'sensor(1)'], ['d%C3%A9v', 'dév']])('registers a device called %s, as hawkBit allows any id without whitespace', async (path, cid) => {
      const app = await startDdiApp(kind);
      const res = await app.anon.get(`/${app.tenant}/controller/v1/${path}`, { headers: GATEWAY });
      expect(res.status).toBe(200);
      expect((await targetOf(app, cid)).controllerId).toBe(cid);
    });
  });
});
