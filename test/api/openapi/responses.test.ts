/**
 * Real replies against the OpenAPI document: a walk through the Management and DDI APIs (types,
 * module with artifact, set, target, assignment, actions, a device's poll and deploymentBase, a
 * rollout with its groups, tags, filters, configuration, errors), each reply checked against the
 * schema the document gives for its operation, status and content type.
 */
import { randomBytes } from 'node:crypto';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { startApp, type App } from '../../helpers/app.js';
import type { TestResponse } from '../../helpers/server.js';
import { unique, upload } from '../repository/fixture.js';
import { problems } from './instance-check.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

const R = '/rest/v1';

describe('replies match the OpenAPI document', () => {
  let app: App;
  let doc: Json;
  let checked = 0;

  /** The reply's status, content type and body as the document's operation `method path` describes them. */
  const documented = (method: string, path: string, res: TestResponse): Json => {
    const op = doc.paths[path]?.[method.toLowerCase()];
    expect(op, `${method} ${path} is documented`).toBeDefined();
    let reply = op.responses[String(res.status)] ?? op.responses[`${String(res.status)[0]}XX`];
    expect(reply, `${method} ${path} documents ${res.status} (${res.text.slice(0, 300)})`).toBeDefined();
    if (reply.$ref !== undefined) reply = doc.components.responses[reply.$ref.split('/').pop()];
    if (res.text === '') return undefined;
    const type = (res.headers.get('content-type') ?? '').split(';')[0] ?? '';
    const media = reply.content?.[type];
    expect(media, `${method} ${path} ${res.status} documents ${type}`).toBeDefined();
    const body = JSON.parse(res.text);
    expect(problems(doc, media.schema, body), `${method} ${path} ${res.status}`).toEqual([]);
    checked++;
    return body;
  };
  const call = async (method: string, template: string, path: string, json?: unknown, expected?: number): Promise<Json> => {
    const res = await app.mgmt.request(method, path, json === undefined ? {} : { json });
    if (expected !== undefined) expect(res.status, res.text).toBe(expected);
    return documented(method, template, res);
  };

  beforeAll(async () => {
    app = await startApp('memory');
    doc = (await app.anon.get('/v3/api-docs')).json();
  });

  it('the checker finds what does not match', () => {
    const target = { $ref: '#/components/schemas/MgmtTarget' };
    expect(problems(doc, target, { name: 'x' })).toEqual(expect.arrayContaining(['$: missing controllerId']));
    expect(problems(doc, target, [])).toEqual(['$: expected object, got array']);
    expect(problems(doc, { $ref: '#/components/schemas/MgmtAction' }, { detailStatus: 'done' }).join()).toMatch(/detailStatus: "done" is not one of/);
    expect(() => problems(doc, { unknownKeyword: 1 }, 1)).toThrow(/does not know/);
  });

  it('Management: repository, target, assignment, actions, rollout, tags, filters, configuration, errors', async () => {
    const smType = (await call('POST', `${R}/softwaremoduletypes`, `${R}/softwaremoduletypes`,
      [{ key: unique('os'), name: unique('OS'), maxAssignments: 1 }], 201))[0];
    const sm = (await call('POST', `${R}/softwaremodules`, `${R}/softwaremodules`,
      [{ name: unique('fw'), version: '1.0', type: smType.key, vendor: 'ACME' }], 201))[0];
    await call('GET', `${R}/softwaremodules/{softwareModuleId}`, `${R}/softwaremodules/${sm.id}`, undefined, 200);
    const artifactPath = `${R}/softwaremodules/{softwareModuleId}/artifacts`;
    documented('POST', artifactPath, await upload(app, sm.id, [{ name: 'file', filename: 'fw.bin', content: randomBytes(1000) }]));
    await call('GET', artifactPath, `${R}/softwaremodules/${sm.id}/artifacts`, undefined, 200);
    await call('POST', `${R}/softwaremodules/{softwareModuleId}/metadata`, `${R}/softwaremodules/${sm.id}/metadata`, [{ key: 'k', value: 'v' }], 201);
    await call('GET', `${R}/softwaremodules/{softwareModuleId}/metadata`, `${R}/softwaremodules/${sm.id}/metadata`, undefined, 200);
    const dsType = (await call('POST', `${R}/distributionsettypes`, `${R}/distributionsettypes`,
      [{ key: unique('dst'), name: unique('DST'), mandatorymodules: [{ id: smType.id }] }], 201))[0];
    const ds = (await call('POST', `${R}/distributionsets`, `${R}/distributionsets`,
      [{ name: unique('ds'), version: '1.0', type: dsType.key, modules: [{ id: sm.id }] }], 201))[0];
    await call('GET', `${R}/distributionsets`, `${R}/distributionsets?representation=full`, undefined, 200);

    const targets = await call('POST', `${R}/targets`, `${R}/targets`,
      [{ controllerId: 'oa-1', name: 'first', description: 'a target' }, { controllerId: 'oa-r1' }, { controllerId: 'oa-r2' }], 201);
    expect(targets).toHaveLength(3);
    await call('GET', `${R}/targets`, `${R}/targets?limit=2`, undefined, 200);
    await call('GET', `${R}/targets/{targetId}`, `${R}/targets/oa-1`, undefined, 200);
    await call('PUT', `${R}/targets/{targetId}`, `${R}/targets/oa-1`, { description: 'changed' }, 200);

    const assigned = await call('POST', `${R}/targets/{targetId}/assignedDS`, `${R}/targets/oa-1/assignedDS`, [{ id: ds.id, type: 'soft' }], 200);
    const actionId = assigned.assignedActions[0].id;
    await call('GET', `${R}/targets/{targetId}/assignedDS`, `${R}/targets/oa-1/assignedDS`, undefined, 200);
    await call('GET', `${R}/targets/{targetId}/actions`, `${R}/targets/oa-1/actions`, undefined, 200);
    await call('GET', `${R}/targets/{targetId}/actions/{actionId}`, `${R}/targets/oa-1/actions/${actionId}`, undefined, 200);
    await call('GET', `${R}/targets/{targetId}/actions/{actionId}/status`, `${R}/targets/oa-1/actions/${actionId}/status`, undefined, 200);
    await call('GET', `${R}/actions`, `${R}/actions?representation=full`, undefined, 200);
    await call('GET', `${R}/actions/{actionId}`, `${R}/actions/${actionId}`, undefined, 200);

    const rollout = await call('POST', `${R}/rollouts`, `${R}/rollouts`,
      { name: unique('ro'), distributionSetId: ds.id, targetFilterQuery: 'controllerId==oa-r*', amountGroups: 2 }, 201);
    await vi.waitFor(async () => {
      expect((await call('GET', `${R}/rollouts/{rolloutId}`, `${R}/rollouts/${rollout.id}`, undefined, 200)).status).not.toBe('creating');
    }, { timeout: 10_000, interval: 50 });
    const groups = await call('GET', `${R}/rollouts/{rolloutId}/deploygroups`, `${R}/rollouts/${rollout.id}/deploygroups?representation=full`, undefined, 200);
    expect(groups.total).toBe(2);
    await call('GET', `${R}/rollouts/{rolloutId}/deploygroups/{groupId}`, `${R}/rollouts/${rollout.id}/deploygroups/${groups.content[0].id}`, undefined, 200);
    await call('GET', `${R}/rollouts`, `${R}/rollouts`, undefined, 200);

    const tag = (await call('POST', `${R}/targettags`, `${R}/targettags`, [{ name: unique('tag'), colour: '#fff' }], 201))[0];
    documented('POST', `${R}/targettags/{targetTagId}/assigned`, await app.mgmt.post(`${R}/targettags/${tag.id}/assigned`, { json: ['oa-1'] }));
    await call('GET', `${R}/targettags/{targetTagId}/assigned`, `${R}/targettags/${tag.id}/assigned`, undefined, 200);
    await call('GET', `${R}/targets/{targetId}/tags`, `${R}/targets/oa-1/tags`, undefined, 200);
    const toggled = await call('POST', `${R}/targettags/{targetTagId}/assigned/toggleTagAssignment`,
      `${R}/targettags/${tag.id}/assigned/toggleTagAssignment`, ['oa-1', 'oa-r1'], 200);
    expect(toggled.assignedTargets).toHaveLength(1);
    await call('GET', `${R}/distributionsets/{distributionSetId}/statistics`, `${R}/distributionsets/${ds.id}/statistics`, undefined, 200);
    await call('GET', `${R}/targets/{targetId}/autoConfirm`, `${R}/targets/oa-1/autoConfirm`, undefined, 200);
    await call('GET', `${R}/userinfo`, `${R}/userinfo`, undefined, 200);
    await call('POST', `${R}/targetfilters`, `${R}/targetfilters`, { name: unique('f'), query: 'name==oa*' }, 201);
    await call('POST', `${R}/targettypes`, `${R}/targettypes`, [{ name: unique('tt') }], 201);
    await call('GET', `${R}/system/configs`, `${R}/system/configs`, undefined, 200);

    // errors: the error body
    const missing = await call('GET', `${R}/targets/{targetId}`, `${R}/targets/nobody`, undefined, 404);
    expect(missing.errorCode).toBe('hawkbit.server.error.repo.entityNotFound');
    const bad = await call('POST', `${R}/targets`, `${R}/targets`, [{ name: 'no controller id' }], 400);
    expect(bad.message).toMatch(/controllerId/);
    await call('GET', `${R}/targets`, `${R}/targets?q=nosuchfield==1`, undefined, 400);
    documented('GET', `${R}/targets`, await app.anon.get(`${R}/targets`));
    expect(checked).toBeGreaterThanOrEqual(30); // replies with a body, each checked against its schema
  });

  it('DDI: poll, deploymentBase, artifacts, feedback', async () => {
    await call('PUT', `${R}/system/configs/{keyName}`, `${R}/system/configs/authentication.targettoken.enabled`, { value: true }, 200);
    const smType = (await call('POST', `${R}/softwaremoduletypes`, `${R}/softwaremoduletypes`, [{ key: unique('os'), name: unique('OS') }], 201))[0];
    const sm = (await call('POST', `${R}/softwaremodules`, `${R}/softwaremodules`, [{ name: unique('fw'), version: '2.0', type: smType.key }], 201))[0];
    expect((await upload(app, sm.id, [{ name: 'file', filename: 'fw.bin', content: randomBytes(100) }])).status).toBe(201);
    const dsType = (await call('POST', `${R}/distributionsettypes`, `${R}/distributionsettypes`,
      [{ key: unique('dst'), name: unique('DST'), mandatorymodules: [{ id: smType.id }] }], 201))[0];
    const ds = (await call('POST', `${R}/distributionsets`, `${R}/distributionsets`,
      [{ name: unique('ds'), version: '2.0', type: dsType.key, modules: [{ id: sm.id }] }], 201))[0];
    const [target] = await call('POST', `${R}/targets`, `${R}/targets`, [{ controllerId: 'oa-dev' }], 201);
    const assigned = await call('POST', `${R}/distributionsets/{distributionSetId}/assignedTargets`,
      `${R}/distributionsets/${ds.id}/assignedTargets`, [{ id: 'oa-dev' }], 200);
    const actionId = assigned.assignedActions[0].id;

    const base = '/{tenant}/controller/v1/{controllerId}';
    const device = `/${app.tenant}/controller/v1/oa-dev`;
    const headers = { authorization: `TargetToken ${target.securityToken}` };
    const poll = documented('GET', base, await app.anon.get(device, { headers }));
    expect(poll._links.deploymentBase.href).toContain(`/deploymentBase/${actionId}`);
    const deployment = documented('GET', `${base}/deploymentBase/{actionId}`, await app.anon.get(`${device}/deploymentBase/${actionId}?actionHistory=5`, { headers }));
    expect(deployment.deployment.chunks[0].artifacts).toHaveLength(1);
    documented('GET', `${base}/softwaremodules/{softwareModuleId}/artifacts`, await app.anon.get(`${device}/softwaremodules/${sm.id}/artifacts`, { headers }));
    const feedback = { status: { execution: 'closed', result: { finished: 'success' } } };
    const fed = await app.anon.post(`${device}/deploymentBase/${actionId}/feedback`, { headers, json: feedback });
    expect(fed.status).toBe(200);
    documented('POST', `${base}/deploymentBase/{actionId}/feedback`, fed);
    documented('GET', `${base}/installedBase/{actionId}`, await app.anon.get(`${device}/installedBase/${actionId}`, { headers }));
    documented('GET', `${base}/confirmationBase`, await app.anon.get(`${device}/confirmationBase`, { headers }));
    const wrong = await app.anon.get(`${device}/deploymentBase/999999`, { headers });
    expect(wrong.status).toBe(404);
    documented('GET', `${base}/deploymentBase/{actionId}`, wrong);
    documented('GET', '/health', await app.anon.get('/health'));
  });
});
