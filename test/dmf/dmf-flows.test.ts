/**
 * A device driven only over AMQP (DMF), on both stores, through a real broker: registration,
 * attributes, assignments with success and failure, a rollout made over the Management API, cancellation, the
 * confirmation flow and auto-confirmation, batch assignments, removal and deletion, PING.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ACTION, type ActionRecord } from '../../src/domain/action.js';
import { createRollout, waitStatus } from '../api/rollouts/fixture.js';
import { LOCAL_STORES, STORES } from '../helpers/app.js';
import { seedDistributionSet } from '../helpers/seed.js';
import { newThingId, startDmfApp, useRabbit, type DmfApp } from './fixture.js';

const rabbit = useRabbit(STORES.length + LOCAL_STORES.length);
const thing = (): string => newThingId('thing');

describe.each(STORES)('DMF on the %s store', (kind) => {
  let app: DmfApp;
  beforeAll(async () => {
    app = await startDmfApp(kind, rabbit(), `v${STORES.indexOf(kind) + 1}`, { scheduler: { autoAssignMs: 200, rolloutMs: 50 } });
  });
  afterAll(async () => {
    await app?.gateway.close();
    await app?.server.close();
  });

  const registered = async (id: string, body?: unknown): Promise<void> => {
    await app.gateway.thingCreated(app.tenant, id, body);
    await vi.waitFor(async () => expect(await app.target(id)).toBeDefined(), { timeout: 10_000 });
  };
  const assign = async (id: string, ds: number, extra: Record<string, unknown> = {}): Promise<number> => {
    const res = await app.mgmt.post(`/rest/v1/targets/${id}/assignedDS`, { json: { id: ds, type: 'forced', ...extra } });
    expect(res.status, res.text).toBe(200);
    return res.json().assignedActions[0].id as number;
  };
  const action = async (id: number): Promise<ActionRecord> =>
    (await app.store.get<ActionRecord>(app.tenant, ACTION, id))?.value as ActionRecord;
  const actionStatus = (id: number, status: string): Promise<void> =>
    vi.waitFor(async () => expect((await action(id)).status).toBe(status), { timeout: 10_000 });
  const setConfig = async (key: string, value: unknown): Promise<void> => {
    const res = await app.mgmt.put(`/rest/v1/system/configs/${key}`, { json: { value } });
    expect(res.status, res.text).toBeLessThan(300);
  };

  it('registers a thing with name and attributes, shows its amqp address, and updates its attributes', async () => {
    const id = thing();
    await registered(id, { name: 'Gateway device', attributeUpdate: { attributes: { hw: 'rev2', serial: 42 } } });
    const res = await app.mgmt.get(`/rest/v1/targets/${id}`);
    const t = res.json();
    expect(t).toMatchObject({ controllerId: id, name: 'Gateway device', updateStatus: 'registered', address: `amqp://${app.vhost}/${app.gateway.exchange}` });
    expect(t.ipAddress).toBeUndefined();
    expect(t.pollStatus).toBeDefined();
    expect((await app.mgmt.get(`/rest/v1/targets/${id}/attributes`)).json()).toEqual({ hw: 'rev2', serial: '42' });

    await app.gateway.event(app.tenant, id, 'UPDATE_ATTRIBUTES', { attributes: { os: 'linux' } });
    await vi.waitFor(async () => expect((await app.target(id))?.attributes).toEqual({ hw: 'rev2', serial: '42', os: 'linux' }));
    await app.gateway.event(app.tenant, id, 'UPDATE_ATTRIBUTES', { attributes: { a: '1' }, mode: 'REPLACE' });
    await vi.waitFor(async () => expect((await app.target(id))?.attributes).toEqual({ a: '1' }));
    await app.gateway.event(app.tenant, id, 'UPDATE_ATTRIBUTES', { attributes: { a: '' }, mode: 'REMOVE' });
    await vi.waitFor(async () => expect((await app.target(id))?.attributes).toEqual({}));

    // the Management API asks for the attributes again: the device hears REQUEST_ATTRIBUTES_UPDATE
    expect((await app.target(id))?.requestAttributes).toBe(false);
    expect((await app.mgmt.put(`/rest/v1/targets/${id}`, { json: { requestAttributes: true } })).status).toBe(200);
    const request = await app.gateway.next(id, 'REQUEST_ATTRIBUTES_UPDATE');
    expect(request).toMatchObject({ type: 'EVENT', tenant: app.tenant });
    expect(request.headers['__TypeId__']).toBeUndefined();

    // a second THING_CREATED updates the name and keeps the target; a target type is set by name, '' removes it
    const type = await app.mgmt.post('/rest/v1/targettypes', { json: [{ name: `gw-type-${id}` }] });
    expect(type.status, type.text).toBe(201);
    await app.gateway.thingCreated(app.tenant, id, { name: 'Renamed', type: `GW-TYPE-${id}` });
    await vi.waitFor(async () => expect(await app.target(id)).toMatchObject({ name: 'Renamed', targetType: type.json()[0].id }));
    await app.gateway.thingCreated(app.tenant, id, { type: 'no such type' });
    await app.gateway.thingCreated(app.tenant, id, { name: 'Again' });
    await vi.waitFor(async () => expect(await app.target(id)).toMatchObject({ name: 'Again', targetType: type.json()[0].id }));
    await app.gateway.thingCreated(app.tenant, id, { type: '' });
    await vi.waitFor(async () => expect((await app.target(id))?.targetType).toBeNull());
  });

  it('answers PING with PING_RESPONSE carrying the correlation id', async () => {
    const before = Date.now();
    await app.gateway.send({ headers: { type: 'PING', tenant: app.tenant }, replyTo: app.gateway.exchange, correlationId: 'ping-1' });
    const pong = await app.gateway.take((m) => m.type === 'PING_RESPONSE', 'PING_RESPONSE');
    expect(pong).toMatchObject({ correlationId: 'ping-1', contentType: 'text/plain', tenant: app.tenant });
    expect(Number(pong.raw.toString())).toBeGreaterThanOrEqual(before);
    const metrics = (await app.anon.get('/metrics')).text;
    expect(metrics).toMatch(/^dmf_messages_total\{direction="in",kind="PING"\} [1-9]/m);
    expect(metrics).toMatch(/^dmf_messages_total\{direction="out",kind="PING_RESPONSE"\} [1-9]/m);
  });

  it('delivers an assignment with artifacts a DDI download accepts, and takes success and failure through the action machine', async () => {
    const { ds, module, smType, artifacts } = await seedDistributionSet(app, {
      metadata: { visible: { value: 'yes', targetVisible: true }, hidden: { value: 'no', targetVisible: false } },
    });
    const [ok, bad] = [thing(), thing()];
    await registered(ok);
    await registered(bad);
    const okAction = await assign(ok, ds.id);
    const msg = await app.gateway.next(ok, 'DOWNLOAD_AND_INSTALL');
    const target = await app.target(ok);
    const artifact = artifacts[0]!;
    expect(msg.body).toEqual({
      actionId: okAction,
      targetSecurityToken: target?.securityToken,
      softwareModules: [{
        moduleId: module.id, moduleType: smType.key, moduleVersion: '1.0.0',
        artifacts: [{
          // hawkBit's DmfArtifactHash: exactly sha1 and md5 (sha256 only with dmf.extendedHashes)
          filename: 'image.bin', hashes: { sha1: artifact.record.hashes.sha1, md5: artifact.record.hashes.md5 },
          size: artifact.content.length, lastModified: artifact.record.lastModifiedAt,
          urls: { HTTP: `${app.url}/${app.tenant}/controller/v1/${ok}/softwaremodules/${module.id}/artifacts/image.bin` },
        }],
        metadata: [{ key: 'visible', value: 'yes' }],
      }],
    });
    expect(msg.correlationId).toBeTruthy();
    expect(msg.headers['__TypeId__']).toBe('org.eclipse.hawkbit.dmf.json.model.DmfDownloadAndUpdateRequest');
    const download = await fetch(msg.body.softwareModules[0].artifacts[0].urls.HTTP, { headers: { authorization: `TargetToken ${target?.securityToken}` } });
    expect(download.status).toBe(200);
    expect(Buffer.from(await download.arrayBuffer()).equals(artifact.content)).toBe(true);

    await app.gateway.status(app.tenant, ok, okAction, 'DOWNLOAD');
    await app.gateway.status(app.tenant, ok, okAction, 'RUNNING', { code: 7 });
    await app.gateway.status(app.tenant, ok, okAction, 'FINISHED');
    await actionStatus(okAction, 'finished');
    await vi.waitFor(async () => expect(await app.target(ok)).toMatchObject({ updateStatus: 'in_sync', installedDs: ds.id }));
    const history = (await app.mgmt.get(`/rest/v1/targets/${ok}/actions/${okAction}/status?sort=id:ASC`)).json().content as { type: string; messages: string[] }[];
    // the HTTP download itself adds a DOWNLOAD entry naming the URI, as for DDI devices
    expect(history.map((s) => s.type)).toEqual(['running', 'download', 'download', 'running', 'finished']);
    expect(history[3]?.messages).toEqual(['RUNNING from test', 'Device reported status code: 7']);
    // after an installation hawkBit asks for the attributes
    await app.gateway.next(ok, 'REQUEST_ATTRIBUTES_UPDATE');

    const badAction = await assign(bad, ds.id);
    await app.gateway.next(bad, 'DOWNLOAD_AND_INSTALL');
    await app.gateway.status(app.tenant, bad, badAction, 'ERROR', { message: ['disk full'] });
    await actionStatus(badAction, 'error');
    await vi.waitFor(async () => expect(await app.target(bad)).toMatchObject({ updateStatus: 'error', assignedDs: null }));
    const metrics = (await app.anon.get('/metrics')).text;
    expect(metrics).toMatch(/^dmf_messages_total\{direction="in",kind="UPDATE_ACTION_STATUS"\} [1-9]/m);
    expect(metrics).toMatch(/^dmf_messages_total\{direction="out",kind="DOWNLOAD_AND_INSTALL"\} [1-9]/m);
  });

  it('sends a download-only action as DOWNLOAD; DOWNLOADED closes it, a later FINISHED installs it (the DMF-only path)', async () => {
    const { ds } = await seedDistributionSet(app);
    const id = thing();
    await registered(id);
    const a = await assign(id, ds.id, { type: 'downloadonly' });
    const download = await app.gateway.next(id, 'DOWNLOAD');
    expect(download.body.actionId).toBe(a);
    expect(download.headers['__TypeId__']).toBe('org.eclipse.hawkbit.dmf.json.model.DmfDownloadAndUpdateRequest');
    await app.gateway.status(app.tenant, id, a, 'DOWNLOADED');
    await actionStatus(a, 'downloaded');
    await vi.waitFor(async () => expect(await app.target(id)).toMatchObject({ updateStatus: 'in_sync', installedDs: null }));
    await app.gateway.status(app.tenant, id, a, 'FINISHED');
    await actionStatus(a, 'finished');
    await vi.waitFor(async () => expect(await app.target(id)).toMatchObject({ updateStatus: 'in_sync', installedDs: ds.id, assignedDs: ds.id }));
  });

  it('delivers auto-assignments of a target filter', async () => {
    const { ds } = await seedDistributionSet(app);
    const id = thing();
    await registered(id);
    const filter = await app.mgmt.post('/rest/v1/targetfilters', { json: { name: `auto-${id}`, query: `controllerid==${id}` } });
    expect(filter.status, filter.text).toBe(201);
    const auto = await app.mgmt.post(`/rest/v1/targetfilters/${filter.json().id}/autoAssignDS`, { json: { id: ds.id, type: 'forced' } });
    expect(auto.status, auto.text).toBe(200);
    const msg = await app.gateway.next(id, 'DOWNLOAD_AND_INSTALL');
    expect((await action(msg.body.actionId)).ds).toBe(ds.id);
  });

  it('takes part in a rollout made over the Management API: the group start reaches both things, one succeeds, one fails', async () => {
    const { ds } = await seedDistributionSet(app);
    const things = [thing(), thing()];
    for (const t of things) await registered(t);
    // one group; one error of two (50 %) is not above the error threshold, so the rollout runs to its end
    const rollout = await createRollout(app, {
      name: `dmf-${things[0]}`, distributionSetId: ds.id, targetFilterQuery: things.map((t) => `controllerid==${t}`).join(','),
      amountGroups: 1, type: 'forced',
      successCondition: { condition: 'THRESHOLD', expression: '50' }, errorCondition: { condition: 'THRESHOLD', expression: '50' },
      errorAction: { action: 'PAUSE', expression: '' },
    });
    await waitStatus(app, rollout.id, 'ready');
    expect(app.gateway.pending(things[0]!)).toEqual([]); // scheduled actions are not sent before the group starts
    expect((await app.mgmt.post(`/rest/v1/rollouts/${rollout.id}/start`)).status).toBe(204);
    const ids: number[] = [];
    for (const t of things) ids.push((await app.gateway.next(t, 'DOWNLOAD_AND_INSTALL')).body.actionId as number);
    for (const id of ids) expect(await action(id)).toMatchObject({ rollout: rollout.id, ds: ds.id });
    await app.gateway.status(app.tenant, things[0]!, ids[0]!, 'FINISHED');
    await app.gateway.status(app.tenant, things[1]!, ids[1]!, 'ERROR');
    await actionStatus(ids[0]!, 'finished');
    await actionStatus(ids[1]!, 'error');
    const done = await waitStatus(app, rollout.id, 'finished');
    expect(done.totalTargetsPerStatus).toMatchObject({ finished: 1, error: 1, running: 0, scheduled: 0 });
  });

  /** Two things of a verifyInstall rollout, each with its action closed with success and waiting for its install to be confirmed. */
  const verifying = async (verifyInstall: unknown) => {
    const { ds } = await seedDistributionSet(app);
    const things = [thing(), thing()] as const;
    for (const t of things) await registered(t);
    const rollout = await createRollout(app, {
      name: `dmf-verify-${things[0]}`, distributionSetId: ds.id, targetFilterQuery: things.map((t) => `controllerid==${t}`).join(','),
      amountGroups: 1, type: 'forced', verifyInstall, errorCondition: { condition: 'THRESHOLD', expression: '100' },
    });
    await waitStatus(app, rollout.id, 'ready');
    expect((await app.mgmt.post(`/rest/v1/rollouts/${rollout.id}/start`)).status).toBe(204);
    const ids: number[] = [];
    for (const t of things) ids.push((await app.gateway.next(t, 'DOWNLOAD_AND_INSTALL')).body.actionId as number);
    for (const [i, t] of things.entries()) await app.gateway.status(app.tenant, t, ids[i]!, 'FINISHED');
    for (const id of ids) await vi.waitFor(async () => expect(await action(id)).toMatchObject({ status: 'finished', verifying: true }), { timeout: 10_000 });
    return { ds, things, ids, rollout };
  };

  it('verifyInstall over DMF: a FINISHED counts once a second FINISHED confirms it; an ERROR after FINISHED is a fallback (error)', async () => {
    const { things, ids, rollout } = await verifying(true);
    await app.gateway.status(app.tenant, things[0], ids[0]!, 'FINISHED');
    await app.gateway.status(app.tenant, things[1], ids[1]!, 'ERROR');
    await actionStatus(ids[1]!, 'error');
    const done = await waitStatus(app, rollout.id, 'finished');
    expect(done.totalTargetsPerStatus).toMatchObject({ finished: 1, error: 1, running: 0, scheduled: 0 });
    expect(await action(ids[0]!)).toMatchObject({ status: 'finished', verifying: false });
  });

  it('verifyInstall with an attribute over DMF: UPDATE_ATTRIBUTES naming the version confirms, another version is a fallback', async () => {
    const { ds, things, ids, rollout } = await verifying({ attribute: 'sw_version' });
    // without the attribute, or removing it, nothing is decided
    await app.gateway.event(app.tenant, things[0], 'UPDATE_ATTRIBUTES', { attributes: { board: 'rev-b' } });
    await app.gateway.event(app.tenant, things[0], 'UPDATE_ATTRIBUTES', { attributes: { sw_version: '' }, mode: 'REMOVE' });
    await vi.waitFor(async () => expect((await app.target(things[0]))?.attributes).toEqual({ board: 'rev-b' }), { timeout: 10_000 });
    expect(await action(ids[0]!)).toMatchObject({ status: 'finished', verifying: true });
    await app.gateway.event(app.tenant, things[0], 'UPDATE_ATTRIBUTES', { attributes: { sw_version: ` ${ds.version.toUpperCase()} ` } });
    await app.gateway.event(app.tenant, things[1], 'UPDATE_ATTRIBUTES', { attributes: { sw_version: '0.9-old' }, mode: 'REPLACE' });
    await actionStatus(ids[1]!, 'error');
    const done = await waitStatus(app, rollout.id, 'finished');
    expect(done.totalTargetsPerStatus).toMatchObject({ finished: 1, error: 1, running: 0, scheduled: 0 });
    expect(await action(ids[0]!)).toMatchObject({ status: 'finished', verifying: false });
  });

  it('cancels: CANCEL_DOWNLOAD, then CANCELED closes the action; a replaced action is canceled before the new one is sent', async () => {
    const [a, b] = [await seedDistributionSet(app), await seedDistributionSet(app)];
    const id = thing();
    await registered(id);
    const first = await assign(id, a.ds.id);
    await app.gateway.next(id, 'DOWNLOAD_AND_INSTALL');
    expect((await app.mgmt.delete(`/rest/v1/targets/${id}/actions/${first}`)).status).toBe(204);
    const cancel = await app.gateway.next(id, 'CANCEL_DOWNLOAD');
    expect(cancel.body).toEqual({ actionId: first });
    expect(cancel.headers['__TypeId__']).toBe('org.eclipse.hawkbit.dmf.json.model.DmfActionRequest');
    await app.gateway.status(app.tenant, id, first, 'CANCEL_REJECTED');
    await actionStatus(first, 'running');
    expect((await app.mgmt.delete(`/rest/v1/targets/${id}/actions/${first}`)).status).toBe(204);
    await app.gateway.next(id, 'CANCEL_DOWNLOAD');
    await app.gateway.status(app.tenant, id, first, 'CANCELED');
    await actionStatus(first, 'canceled');

    // a new assignment replaces an open one: cancel first, the new action once the cancel is answered
    const second = await assign(id, a.ds.id);
    expect((await app.gateway.next(id, 'DOWNLOAD_AND_INSTALL')).body.actionId).toBe(second);
    const third = await assign(id, b.ds.id);
    expect((await app.gateway.next(id, 'CANCEL_DOWNLOAD')).body).toEqual({ actionId: second });
    await new Promise((r) => setTimeout(r, 300)); // deliberately: nothing else is sent before the cancel is answered
    expect(app.gateway.pending(id)).toEqual([]);
    await app.gateway.status(app.tenant, id, second, 'CANCELED');
    expect((await app.gateway.next(id, 'DOWNLOAD_AND_INSTALL')).body.actionId).toBe(third);
    await actionStatus(second, 'canceled');
  });

  it('runs the confirmation flow: CONFIRM, CONFIRMED then DOWNLOAD_AND_INSTALL; DENIED keeps it waiting; auto-confirm over DMF', async () => {
    await setConfig('user.confirmation.flow.enabled', true);
    try {
      const { ds } = await seedDistributionSet(app);
      const [c, d] = [thing(), thing()];
      await registered(c);
      await registered(d);
      const ca = await assign(c, ds.id, { confirmationRequired: true });
      const confirm = await app.gateway.next(c, 'CONFIRM');
      expect(confirm.body.actionId).toBe(ca);
      expect(confirm.headers['__TypeId__']).toBe('org.eclipse.hawkbit.dmf.json.model.DmfConfirmRequest');
      expect((await action(ca)).status).toBe('wait_for_confirmation');
      await app.gateway.status(app.tenant, c, ca, 'DENIED');
      await new Promise((r) => setTimeout(r, 300)); // deliberately: DENIED leaves it waiting, it does not move on later
      expect((await action(ca)).status).toBe('wait_for_confirmation');
      await app.gateway.status(app.tenant, c, ca, 'CONFIRMED');
      expect((await app.gateway.next(c, 'DOWNLOAD_AND_INSTALL')).body.actionId).toBe(ca);
      await actionStatus(ca, 'running');

      const da = await assign(d, ds.id, { confirmationRequired: true });
      await app.gateway.next(d, 'CONFIRM');
      await app.gateway.event(app.tenant, d, 'UPDATE_AUTO_CONFIRM', { enabled: true, initiator: 'gw' });
      expect((await app.gateway.next(d, 'DOWNLOAD_AND_INSTALL')).body.actionId).toBe(da);
      await actionStatus(da, 'running');
      expect((await app.target(d))?.autoConfirm).toMatchObject({ initiator: 'gw', remark: 'Activated using Device Management Federation API.' });
      await app.gateway.event(app.tenant, d, 'UPDATE_AUTO_CONFIRM', { enabled: false });
      await vi.waitFor(async () => expect((await app.target(d))?.autoConfirm).toBeNull());
    } finally {
      await setConfig('user.confirmation.flow.enabled', false);
    }
  });

  it('sends one BATCH_DOWNLOAD_AND_INSTALL for an assignment to several things when batch assignments are on', async () => {
    await setConfig('batch.assignments.enabled', true);
    try {
      const { ds } = await seedDistributionSet(app);
      const things = [thing(), thing(), thing()];
      for (const t of things) await registered(t);
      const res = await app.mgmt.post(`/rest/v1/distributionsets/${ds.id}/assignedTargets`, { json: things.map((id) => ({ id, type: 'forced' })) });
      expect(res.status, res.text).toBe(200);
      const seen = new Map<string, number>();
      while (seen.size < things.length) {
        const batch = await app.gateway.take((m) => m.topic === 'BATCH_DOWNLOAD_AND_INSTALL', 'BATCH_DOWNLOAD_AND_INSTALL');
        expect(batch.thingId).toBeUndefined();
        expect(batch.headers['__TypeId__']).toBe('org.eclipse.hawkbit.dmf.json.model.DmfBatchDownloadAndUpdateRequest');
        expect(batch.body.softwareModules).toHaveLength(1);
        for (const t of batch.body.targets) seen.set(t.controllerId, t.actionId);
      }
      expect([...seen.keys()].sort()).toEqual([...things].sort());
    } finally {
      await setConfig('batch.assignments.enabled', false);
    }
  });

  it('removes a thing on THING_REMOVED and tells a deleted thing THING_DELETED', async () => {
    const [gone, deleted] = [thing(), thing()];
    await registered(gone);
    await registered(deleted);
    await app.gateway.send({ headers: { type: 'THING_REMOVED', tenant: app.tenant, thingId: gone } });
    await vi.waitFor(async () => expect(await app.target(gone)).toBeUndefined(), { timeout: 10_000 });
    await app.gateway.next(gone, 'THING_DELETED');
    expect((await app.mgmt.delete(`/rest/v1/targets/${deleted}`)).status).toBe(204);
    const msg = await app.gateway.next(deleted, 'THING_DELETED');
    expect(msg).toMatchObject({ type: 'THING_DELETED', tenant: app.tenant });
    // hawkBit sends messages without a body as they are, without a type id
    expect(msg.headers['__TypeId__']).toBeUndefined();
  });
});

describe.each(LOCAL_STORES)('DMF with dmf.extendedHashes on the %s store', (kind) => {
  let app: DmfApp;
  beforeAll(async () => {
    app = await startDmfApp(kind, rabbit(), `v${STORES.length + LOCAL_STORES.indexOf(kind) + 1}`, { dmf: { extendedHashes: true } });
  });
  afterAll(async () => {
    await app?.gateway.close();
    await app?.server.close();
  });

  it('adds sha256 to the artifact hashes', async () => {
    const { ds, artifacts } = await seedDistributionSet(app);
    const id = thing();
    await app.gateway.thingCreated(app.tenant, id);
    await vi.waitFor(async () => expect(await app.target(id)).toBeDefined(), { timeout: 10_000 });
    const res = await app.mgmt.post(`/rest/v1/targets/${id}/assignedDS`, { json: { id: ds.id, type: 'forced' } });
    expect(res.status, res.text).toBe(200);
    const msg = await app.gateway.next(id, 'DOWNLOAD_AND_INSTALL');
    const { hashes } = artifacts[0]!.record;
    expect(msg.body.softwareModules[0].artifacts[0].hashes).toEqual({ sha1: hashes.sha1, md5: hashes.md5, sha256: hashes.sha256 });
  });
});
