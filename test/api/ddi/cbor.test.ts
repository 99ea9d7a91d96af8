/**
 * CBOR on the DDI API, as hawkBit's DDI produces and consumes `application/cbor`: every JSON reply
 * is available in CBOR (negotiated by Accept), every body may be sent in CBOR (Content-Type), and
 * both carry the same values as their JSON forms. The Management API stays JSON.
 * @see issue 7, item 3
 */
import { decode, encode } from 'cborg';
import { describe, expect, it } from 'vitest';
import { ACTION, type ActionRecord } from '../../../src/domain/action.js';
import { STORES } from '../../helpers/app.js';
import { seedDistributionSet } from '../../helpers/seed.js';
import { assign, GATEWAY, startDdiApp, targetOf, type DdiApp } from './fixture.js';

const CBOR = 'application/cbor';

interface Raw {
  readonly status: number;
  readonly headers: Headers;
  readonly bytes: Buffer;
}

async function raw(app: DdiApp, method: string, path: string, headers: Record<string, string>, body?: Uint8Array): Promise<Raw> {
  const res = await fetch(app.url + path, { method, headers: { ...GATEWAY, ...headers }, body });
  return { status: res.status, headers: res.headers, bytes: Buffer.from(await res.arrayBuffer()) };
}

/** GET in CBOR and in JSON: both 200, the CBOR one decodes to the JSON one. */
async function sameInBoth(app: DdiApp, path: string): Promise<unknown> {
  const c = await raw(app, 'GET', path, { accept: CBOR });
  expect(c.status, path).toBe(200);
  expect(c.headers.get('content-type'), path).toBe(CBOR);
  const j = await raw(app, 'GET', path, { accept: 'application/json' });
  expect(j.status, path).toBe(200);
  const value = decode(c.bytes);
  expect(value, path).toEqual(JSON.parse(j.bytes.toString('utf8')));
  return value;
}

async function statusOf(app: DdiApp, id: number): Promise<string> {
  return (await app.store.get<ActionRecord>(app.tenant, ACTION, id))!.value.status;
}

describe.each(STORES)('CBOR on the DDI API, %s store', (kind) => {
  it('answers every DDI reply in CBOR when asked, and reads every DDI body in CBOR', async () => {
    const app = await startDdiApp(kind, { tenantConfig: { 'user.confirmation.flow.enabled': true } });
    const cid = 'cbor-dev';
    const base = app.device(cid).base;
    expect((await raw(app, 'GET', base, { accept: CBOR })).status).toBe(200); // registers
    const { ds, module, artifacts } = await seedDistributionSet(app);
    const id = await assign(app, cid, ds.id);

    const poll = (await sameInBoth(app, base)) as { _links: Record<string, { href: string }> };
    expect(poll._links['confirmationBase']?.href).toContain(`/confirmationBase/${id}`);
    await sameInBoth(app, `${base}/confirmationBase`);
    await sameInBoth(app, `${base}/confirmationBase/${id}`);
    // confirmation feedback in CBOR
    const confirmed = await raw(app, 'POST', `${base}/confirmationBase/${id}/feedback`, { 'content-type': CBOR }, encode({ confirmation: 'confirmed', details: ['ok'] }));
    expect(confirmed.status).toBe(200);
    expect(await statusOf(app, id)).toBe('running');

    const deployment = (await sameInBoth(app, `${base}/deploymentBase/${id}`)) as { deployment: { chunks: { artifacts: unknown[] }[] } };
    expect(deployment.deployment.chunks[0]?.artifacts).toHaveLength(1);
    const list = (await sameInBoth(app, `${base}/softwaremodules/${module.id}/artifacts`)) as { filename: string }[];
    expect(list[0]?.filename).toBe(artifacts[0]!.record.filename);

    // deployment feedback: a document written by hand (RFC 8949 encoding), not by the library under test
    // {"status": {"execution": "proceeding", "result": {"finished": "none", "progress": {"cnt": 1, "of": 0}}, "details": ["fetching", 7]}}
    const handWritten = Buffer.concat([
      Buffer.from([0xa1, 0x66]), Buffer.from('status'),
      Buffer.from([0xa3, 0x69]), Buffer.from('execution'), Buffer.from([0x6a]), Buffer.from('proceeding'),
      Buffer.from([0x66]), Buffer.from('result'),
      Buffer.from([0xa2, 0x68]), Buffer.from('finished'), Buffer.from([0x64]), Buffer.from('none'),
      Buffer.from([0x68]), Buffer.from('progress'), Buffer.from([0xa2, 0x63]), Buffer.from('cnt'), Buffer.from([0x01, 0x62]), Buffer.from('of'), Buffer.from([0x00]),
      Buffer.from([0x67]), Buffer.from('details'), Buffer.from([0x82, 0x68]), Buffer.from('fetching'), Buffer.from([0x07]),
    ]);
    const proceeding = await raw(app, 'POST', `${base}/deploymentBase/${id}/feedback`, { 'content-type': CBOR }, handWritten);
    expect(proceeding.status).toBe(200);
    const history = await app.mgmt.get(`/rest/v1/targets/${cid}/actions/${id}/status`);
    expect(history.json().content.map((e: { messages: string[] }) => e.messages)).toContainEqual(['fetching', '7']);

    // config data and the running version
    const config = await raw(app, 'PUT', `${base}/configData`, { 'content-type': `${CBOR}; charset=binary` }, encode({ mode: 'merge', data: { hw: 'rev3', n: 2 } }));
    expect(config.status).toBe(200);
    expect((await targetOf(app, cid)).attributes).toMatchObject({ hw: 'rev3', n: '2' });
    const closed = await raw(app, 'POST', `${base}/deploymentBase/${id}/feedback`, { 'content-type': CBOR },
      encode({ status: { execution: 'closed', result: { finished: 'success' } } }));
    expect(closed.status).toBe(200);
    expect(await statusOf(app, id)).toBe('finished');
    await sameInBoth(app, `${base}/installedBase/${id}`);
    const running = await raw(app, 'PUT', `${base}/installedBase`, { 'content-type': CBOR }, encode({ name: ds.name, version: ds.version }));
    expect(running.status).toBe(200);

    // auto-confirmation with a CBOR body, and a cancellation read in CBOR
    const auto = await raw(app, 'POST', `${base}/confirmationBase/activateAutoConfirm`, { 'content-type': CBOR }, encode({ initiator: 'cbor' }));
    expect(auto.status).toBe(200);
    expect((await targetOf(app, cid)).autoConfirm).toMatchObject({ initiator: 'cbor' });
    const next = await assign(app, cid, (await seedDistributionSet(app)).ds.id);
    expect((await app.mgmt.delete(`/rest/v1/targets/${cid}/actions/${next}`)).status).toBe(204);
    const cancel = (await sameInBoth(app, `${base}/cancelAction/${next}`)) as { cancelAction: { stopId: string } };
    expect(cancel.cancelAction.stopId).toBe(String(next));
    const cancelled = await raw(app, 'POST', `${base}/cancelAction/${next}/feedback`, { 'content-type': CBOR },
      encode({ status: { execution: 'closed', result: { finished: 'success' } } }));
    expect(cancelled.status).toBe(200);
    expect(await statusOf(app, next)).toBe('canceled');
  });

  it('tags CBOR polls with their own ETag and answers 304 to it', async () => {
    const app = await startDdiApp(kind, { tenantConfig: { minPollingTime: '00:00:00' } });
    const base = app.device('cbor-etag').base;
    const c = await raw(app, 'GET', base, { accept: CBOR });
    const j = await raw(app, 'GET', base, { accept: 'application/json' });
    const tag = c.headers.get('etag');
    expect(tag).toMatch(/^"0[0-9a-f]{16}"$/);
    expect(j.headers.get('etag')).not.toBe(tag);
    const again = await raw(app, 'GET', base, { accept: CBOR, 'if-none-match': tag! });
    expect(again.status).toBe(304);
    expect(again.bytes.length).toBe(0);
  });

  it('answers malformed CBOR with 400 naming the problem, and keeps the Management API JSON-only', async () => {
    const app = await startDdiApp(kind);
    const cid = 'cbor-bad';
    await raw(app, 'GET', app.device(cid).base, {});
    const { ds } = await seedDistributionSet(app);
    const id = await assign(app, cid, ds.id);
    const path = `${app.device(cid).base}/deploymentBase/${id}/feedback`;
    const cases: [Uint8Array, RegExp][] = [
      [Buffer.from([0xa2, 0x61, 0x61]), /body: malformed CBOR/], // truncated map
      [Buffer.from([0x01, 0x02]), /body: malformed CBOR/], // trailing bytes
      [Buffer.from('c11a514b67b0', 'hex'), /body: malformed CBOR .*tag/], // a tagged date where an object belongs
      [Buffer.from([0xa1, 0x01, 0x02]), /body: malformed CBOR .*key/], // an integer key
      [encode({ status: { execution: 'done', result: { finished: 'none' } } }), /body\.status\.execution: must be one of/],
      [Buffer.concat([Buffer.alloc(5000, 0x81), Buffer.from([0x01])]), /nested deeper than 1000 levels/],
      [Buffer.concat([Buffer.alloc(200_000, 0x81), Buffer.from([0x01])]), /nested deeper than 1000 levels/],
    ];
    for (const [body, message] of cases) {
      const res = await raw(app, 'POST', path, { 'content-type': CBOR }, body);
      expect(res.status, message.source).toBe(400);
      const error = JSON.parse(res.bytes.toString('utf8'));
      expect(error.errorCode).toBe('hawkbit.server.error.rest.body.notReadable');
      expect(error.message).toMatch(message);
    }
    // an error answers in CBOR when the client only takes CBOR
    const asCbor = await raw(app, 'POST', path, { 'content-type': CBOR, accept: CBOR }, Buffer.from([0xff]));
    expect(asCbor.status).toBe(400);
    expect(asCbor.headers.get('content-type')).toBe(CBOR);
    expect(decode(asCbor.bytes)).toMatchObject({ errorCode: 'hawkbit.server.error.rest.body.notReadable' });
    expect(await statusOf(app, id)).toBe('running');

    const admin = { authorization: `Basic ${Buffer.from('admin:admin').toString('base64')}` };
    const mgmtBody = await fetch(`${app.url}/rest/v1/targets`, { method: 'POST', headers: { ...admin, 'content-type': CBOR }, body: encode([{ controllerId: 'x' }]) });
    expect(mgmtBody.status).toBe(415);
    const mgmtAccept = await fetch(`${app.url}/rest/v1/targets`, { headers: { ...admin, accept: CBOR } });
    expect(mgmtAccept.status).toBe(406);
  });
});
