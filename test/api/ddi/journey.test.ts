import { describe, expect, it } from 'vitest';
import { ACTION, ACTION_STATUS, type ActionRecord, type ActionStatusRecord } from '../../../src/domain/action.js';
import { STORES } from '../../helpers/app.js';
import { DS_TYPE, SM, SM_TYPE } from '../../../src/domain/repository.js';
import { seedDistributionSet, type SeededDs } from '../../helpers/seed.js';
import { assign, feedback, startDdiApp, targetOf, type DdiApp } from './fixture.js';

async function actionOf(app: DdiApp, id: number): Promise<ActionRecord> {
  const a = await app.store.get<ActionRecord>(app.tenant, ACTION, id);
  if (a === undefined) throw new Error(`no action ${id}`);
  return a.value;
}

async function entriesOf(app: DdiApp, id: number): Promise<ActionStatusRecord[]> {
  const page = await app.store.members(app.tenant, ACTION_STATUS, 'action', String(id), { offset: 0, limit: 1000 });
  return (await app.store.getMany<ActionStatusRecord>(app.tenant, ACTION_STATUS, page.ids)).map((e) => e!.value);
}

/** Moves the seeded module (and its DS type's requirement) to the tenant's built-in module type `key`. */
async function retype(app: DdiApp, seeded: SeededDs, key: string): Promise<void> {
  const typeId = await app.store.lookup(app.tenant, SM_TYPE, 'key', key);
  if (typeId === undefined) throw new Error(`no module type ${key}`);
  const update = async (kind: string, id: number, change: (v: Record<string, unknown>) => Record<string, unknown>) => {
    const cur = (await app.store.get<Record<string, unknown>>(app.tenant, kind, id))!;
    const r = await app.store.commit(app.tenant, {
      writes: [{ kind, id, expect: cur.version, before: cur.value, after: change(cur.value) }],
    });
    if (!r.ok) throw new Error(`retype failed: ${JSON.stringify(r)}`);
  };
  await update(SM, seeded.module.id, (v) => ({ ...v, type: typeId }));
  await update(DS_TYPE, seeded.dsType.id, (v) => ({ ...v, mandatory: [typeId] }));
}

describe.each(STORES)('DDI device journey, %s store', (kind) => {
  it('registers, gets a deployment, downloads, reports progress and success, then shows installedBase', async () => {
    const app = await startDdiApp(kind);
    const dev = app.device('dev-journey');
    const base = `${app.url}${dev.base}`;

    // first poll: plug and play
    const first = await dev.get();
    expect(first.status).toBe(200);
    expect(first.json()).toEqual({ config: { polling: { sleep: '12:00:00' } }, _links: { configData: { href: `${base}/configData` } } });
    const registered = await targetOf(app, 'dev-journey');
    expect(registered).toMatchObject({ updateStatus: 'registered', name: 'dev-journey', description: 'Plug and Play target: dev-journey', createdBy: 'CONTROLLER_PLUG_AND_PLAY' });
    expect(registered.securityToken).toMatch(/^[A-Za-z0-9]{32}$/);

    const seeded = await seedDistributionSet(app, {
      metadata: { visible: { value: 'yes', targetVisible: true }, hidden: { value: 'no', targetVisible: false } },
    });
    await retype(app, seeded, 'application');
    const artifact = seeded.artifacts[0]!;
    const actionId = await assign(app, 'dev-journey', seeded.ds.id, { type: 'soft' });
    expect((await targetOf(app, 'dev-journey')).updateStatus).toBe('pending');

    const poll = (await dev.get()).json();
    expect(poll._links.deploymentBase.href).toMatch(new RegExp(`^${base}/deploymentBase/${actionId}\\?c=-?\\d+$`));
    expect(poll._links.configData).toBeDefined();

    const dep = await dev.get(`/deploymentBase/${actionId}`);
    expect(dep.status).toBe(200);
    expect(dep.headers.get('etag')).toMatch(/^"0[0-9a-f]{16}"$/);
    const fileUrl = `${base}/softwaremodules/${seeded.module.id}/artifacts/image.bin`;
    expect(dep.json()).toEqual({
      id: String(actionId),
      deployment: {
        download: 'attempt', update: 'attempt',
        chunks: [{
          part: 'bApp', version: '1.0.0', name: seeded.module.name,
          artifacts: [{
            filename: 'image.bin', hashes: artifact.record.hashes, size: artifact.content.length,
            _links: { 'download-http': { href: fileUrl }, 'md5sum-http': { href: `${fileUrl}.MD5SUM` } },
          }],
          metadata: [{ key: 'visible', value: 'yes' }],
        }],
      },
    });
    expect((await actionOf(app, actionId)).status).toBe('retrieved');

    // downloads: whole file (a DOWNLOAD entry), one range and several ranges (no entry), the MD5SUM
    const whole = await fetch(fileUrl, { headers: { authorization: `GatewayToken ${app.tenantConfig['authentication.gatewaytoken.key']}` } });
    expect(whole.status).toBe(200);
    expect(Buffer.from(await whole.arrayBuffer()).equals(artifact.content)).toBe(true);
    const gw = { authorization: `GatewayToken ${app.tenantConfig['authentication.gatewaytoken.key']}` };
    const part = await fetch(fileUrl, { headers: { ...gw, range: 'bytes=10-19' } });
    expect(part.status).toBe(206);
    expect(part.headers.get('content-range')).toBe(`bytes 10-19/${artifact.content.length}`);
    expect(Buffer.from(await part.arrayBuffer()).equals(artifact.content.subarray(10, 20))).toBe(true);
    const multi = await fetch(fileUrl, { headers: { ...gw, range: 'bytes=0-9, 100-109' } });
    expect(multi.status).toBe(206);
    expect(multi.headers.get('content-type')).toMatch(/^multipart\/byteranges; boundary=/);
    const multiBody = Buffer.from(await multi.arrayBuffer()).toString('latin1');
    expect(multiBody).toContain(artifact.content.subarray(100, 110).toString('latin1'));
    const md5 = await dev.get(`/softwaremodules/${seeded.module.id}/artifacts/image.bin.MD5SUM`);
    expect(md5.status).toBe(200);
    expect(md5.text).toBe(`${artifact.record.hashes.md5}  image.bin`);
    const downloads = (await entriesOf(app, actionId)).filter((e) => e.type === 'download');
    // the request path, as hawkBit's getRequestURI(), not the full URL
    const filePath = new URL(fileUrl).pathname;
    expect(downloads.map((e) => e.messages[0])).toEqual([`Update Server: Target downloads ${filePath}`, `Update Server: Target downloads ${filePath}.MD5SUM`]);

    // intermediate feedback keeps the action open; the history shows the device's messages newest first
    expect((await dev.post(`/deploymentBase/${actionId}/feedback`, feedback('proceeding', 'none', { details: ['unpacking'] }))).status).toBe(200);
    expect((await dev.post(`/deploymentBase/${actionId}/feedback`, feedback('proceeding', 'none', { details: ['writing'], code: 7 }))).status).toBe(200);
    expect((await actionOf(app, actionId)).status).toBe('retrieved');
    const withHistory = (await dev.get(`/deploymentBase/${actionId}?actionHistory=2`)).json();
    expect(withHistory.actionHistory).toEqual({ status: 'RETRIEVED', messages: ['writing', 'Device reported status code: 7'] });
    expect((await dev.get(`/deploymentBase/${actionId}?actionHistory=-1`)).json().actionHistory.messages).toEqual(['writing', 'Device reported status code: 7', 'unpacking']);

    // success: in sync, installedBase link, no deployment link, attributes requested again
    expect((await dev.post(`/deploymentBase/${actionId}/feedback`, feedback('closed', 'success'))).status).toBe(200);
    const synced = await targetOf(app, 'dev-journey');
    expect(synced).toMatchObject({ updateStatus: 'in_sync', installedDs: seeded.ds.id, assignedDs: seeded.ds.id, installedAction: actionId });
    expect((await actionOf(app, actionId)).status).toBe('finished');
    const after = (await dev.get()).json();
    expect(after._links).toEqual({ installedBase: { href: `${base}/installedBase/${actionId}` }, configData: { href: `${base}/configData` } });
    const installed = await dev.get(`/installedBase/${actionId}`);
    expect(installed.status).toBe(200);
    expect(installed.json().deployment.chunks[0].artifacts[0].filename).toBe('image.bin');
    // a closed action takes no more feedback, and its artifacts are no longer served
    expect((await dev.post(`/deploymentBase/${actionId}/feedback`, feedback('proceeding'))).json().errorCode).toBe('hawkbit.server.error.action.closed');
    expect((await dev.get(`/softwaremodules/${seeded.module.id}/artifacts/image.bin`)).status).toBe(404);
    // ... but the artifact list still includes the installed DS
    const list = await dev.get(`/softwaremodules/${seeded.module.id}/artifacts`);
    expect(list.status).toBe(200);
    expect(list.json()).toEqual([expect.objectContaining({ filename: 'image.bin', size: artifact.content.length })]);
  });

  it('reports a failure: the target goes to error and loses its assigned DS', async () => {
    const app = await startDdiApp(kind);
    const dev = app.device('dev-fail');
    await dev.get();
    const { ds } = await seedDistributionSet(app);
    const actionId = await assign(app, 'dev-fail', ds.id);
    expect((await dev.get(`/deploymentBase/${actionId}`)).json().deployment).toMatchObject({ download: 'forced', update: 'forced' });
    expect((await dev.post(`/deploymentBase/${actionId}/feedback`, feedback('closed', 'failure', { details: ['disk full'] }))).status).toBe(200);
    expect(await targetOf(app, 'dev-fail')).toMatchObject({ updateStatus: 'error', assignedDs: null });
    expect((await actionOf(app, actionId)).status).toBe('error');
    expect((await dev.get()).json()._links?.deploymentBase).toBeUndefined();
  });

  it('offers a cancellation, which the device accepts, and then the next action; a second one it rejects', async () => {
    const app = await startDdiApp(kind);
    const dev = app.device('dev-cancel');
    await dev.get();
    const first = await seedDistributionSet(app);
    const second = await seedDistributionSet(app);
    const third = await seedDistributionSet(app);
    const a1 = await assign(app, 'dev-cancel', first.ds.id);
    expect((await dev.get(`/cancelAction/${a1}`)).status).toBe(404); // not being canceled
    expect((await dev.post(`/cancelAction/${a1}/feedback`, feedback('closed', 'success'))).json().errorCode).toBe('hawkbit.server.error.action.notCancelable');
    const a2 = await assign(app, 'dev-cancel', second.ds.id);
    expect((await actionOf(app, a1)).status).toBe('canceling');

    const poll = (await dev.get()).json();
    expect(poll._links.cancelAction.href).toBe(`${app.url}${dev.base}/cancelAction/${a1}`);
    expect(poll._links.deploymentBase).toBeUndefined();
    expect((await dev.get(`/deploymentBase/${a1}`)).status).toBe(404);
    const cancel = await dev.get(`/cancelAction/${a1}`);
    expect(cancel.status).toBe(200);
    expect(cancel.json()).toEqual({ id: String(a1), cancelAction: { stopId: String(a1) } });
    expect((await entriesOf(app, a1)).some((e) => e.type === 'retrieved')).toBe(true);
    expect((await actionOf(app, a1)).status).toBe('canceling');

    expect((await dev.post(`/cancelAction/${a1}/feedback`, feedback('closed', 'success'))).status).toBe(200);
    expect((await actionOf(app, a1)).status).toBe('canceled');
    // the device repeats its report (the answer got lost): taken again, nothing changes (hawkBit answers 200)
    const repeated = await dev.post(`/cancelAction/${a1}/feedback`, feedback('closed', 'success'));
    expect(repeated.status).toBe(200);
    expect((await dev.get()).json()._links.deploymentBase.href).toContain(`/deploymentBase/${a2}?c=`);

    // the next cancellation is rejected: the action runs on
    const a3 = await assign(app, 'dev-cancel', third.ds.id);
    expect((await actionOf(app, a2)).status).toBe('canceling');
    expect((await dev.post(`/cancelAction/${a2}/feedback`, feedback('rejected', 'none', { details: ['busy'] }))).status).toBe(200);
    expect((await actionOf(app, a2)).status).toBe('running');
    expect((await entriesOf(app, a2)).some((e) => e.type === 'cancel_rejected')).toBe(true);
    // both are active now; equal weight, so the older one is served first
    expect((await dev.get()).json()._links.deploymentBase.href).toContain(`/deploymentBase/${a2}?c=`);
    expect((await actionOf(app, a3)).status).toBe('running');
  });

  it('asks for confirmation when the flow is on; confirmation and auto-confirmation', async () => {
    const app = await startDdiApp(kind, { tenantConfig: { 'user.confirmation.flow.enabled': true } });
    const dev = app.device('dev-confirm');
    await dev.get();
    const one = await seedDistributionSet(app);
    const two = await seedDistributionSet(app);
    const a1 = await assign(app, 'dev-confirm', one.ds.id);
    expect((await actionOf(app, a1)).status).toBe('wait_for_confirmation');

    const base = `${app.url}${dev.base}`;
    const poll = (await dev.get()).json();
    expect(poll._links.confirmationBase.href).toMatch(new RegExp(`^${base}/confirmationBase/${a1}\\?c=-?\\d+$`));
    expect(poll._links.deploymentBase).toBeUndefined();
    expect((await dev.get(`/deploymentBase/${a1}`)).status).toBe(404);
    expect((await dev.post(`/deploymentBase/${a1}/feedback`, feedback('proceeding'))).status).toBe(404);

    const state = (await dev.get('/confirmationBase')).json();
    expect(state.autoConfirm).toEqual({ active: false, activatedAt: 0 });
    expect(state._links.activateAutoConfirm.href).toBe(`${base}/confirmationBase/activateAutoConfirm`);
    expect(state._links.confirmationBase.href).toMatch(new RegExp(`/confirmationBase/${a1}\\?c=`));
    const pending = await dev.get(`/confirmationBase/${a1}`);
    expect(pending.status).toBe(200);
    expect(pending.json()).toMatchObject({ id: String(a1), confirmation: { download: 'forced', update: 'forced', chunks: [expect.any(Object)] } });

    // denied keeps it waiting; confirmed lets it run
    expect((await dev.post(`/confirmationBase/${a1}/feedback`, { json: { confirmation: 'denied', details: ['not now'] } })).status).toBe(200);
    expect((await actionOf(app, a1)).status).toBe('wait_for_confirmation');
    expect((await dev.post(`/confirmationBase/${a1}/feedback`, { json: { confirmation: 'maybe' } })).json().message).toContain('body.confirmation');
    expect((await dev.post(`/confirmationBase/${a1}/feedback`, { json: { confirmation: 'confirmed', code: 1 } })).status).toBe(200);
    expect((await actionOf(app, a1)).status).toBe('running');
    expect((await dev.get(`/confirmationBase/${a1}`)).status).toBe(404);
    expect((await dev.get()).json()._links.deploymentBase.href).toContain(`/deploymentBase/${a1}?c=`);
    expect((await dev.post(`/confirmationBase/${a1}/feedback`, { json: { confirmation: 'confirmed' } })).status).toBe(404);
    // with the flow on, denying a confirmed action revokes the confirmation
    expect((await dev.post(`/confirmationBase/${a1}/feedback`, { json: { confirmation: 'denied' } })).status).toBe(200);
    expect((await actionOf(app, a1)).status).toBe('wait_for_confirmation');

    // auto-confirm: the next assignment runs at once
    expect((await dev.post('/confirmationBase/activateAutoConfirm', { json: { initiator: 'ops', remark: 'night window' } })).status).toBe(200);
    expect((await dev.post('/confirmationBase/activateAutoConfirm')).json().errorCode).toBe('hawkbit.server.error.repo.autoConfAlreadyActive');
    const active = (await dev.get('/confirmationBase')).json();
    expect(active.autoConfirm).toEqual({ active: true, initiator: 'ops', remark: 'night window', activatedAt: expect.any(Number) });
    expect(active._links).toEqual({ deactivateAutoConfirm: { href: `${base}/confirmationBase/deactivateAutoConfirm` } });
    expect((await actionOf(app, a1)).status).toBe('running'); // activation confirmed the waiting action
    const a2 = await assign(app, 'dev-confirm', two.ds.id);
    expect((await actionOf(app, a2)).status).toBe('running');
    expect((await dev.post('/confirmationBase/deactivateAutoConfirm')).status).toBe(200);
    expect((await targetOf(app, 'dev-confirm')).autoConfirm).toBeNull();
  });
});
