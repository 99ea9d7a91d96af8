/**
 * The request body of an operation in the document is the schema its handler validates with — the
 * same object, not a copy. Every `readJson` call (which `readBody` and `readOptionalBody` of the
 * Management kit, and the DDI handlers, go through) is recorded with its schema during a walk over
 * the routes that take a body; each must come from a route whose `doc.body` is that schema.
 * (The tag routes, which validate with `validate(parseJsonBody(...))`, are not seen here.)
 */
import { randomBytes } from 'node:crypto';
import type { z } from 'zod';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import type { Request, Route } from '../../../src/http/types.js';
import { startApp, type App } from '../../helpers/app.js';
import { unique, upload } from '../repository/fixture.js';

const seen = vi.hoisted(() => [] as { method: string; path: string; schema: unknown }[]);

vi.mock('../../../src/http/json.js', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../../../src/http/json.js')>();
  return {
    ...actual,
    readJson: (req: Request, schema: z.ZodType) => {
      seen.push({ method: req.method, path: req.path, schema });
      return actual.readJson(req, schema);
    },
  };
});

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;
const R = '/rest/v1';

/** The route serving a request: the pattern that matches with the most literal segments (the router prefers them). */
function routeOf(routes: readonly Route[], method: string, path: string): Route | undefined {
  const segments = path.split('/');
  const matching = routes.filter((r) => {
    const pattern = r.path.split('/');
    return r.method === method && pattern.length === segments.length && pattern.every((p, i) => p.startsWith(':') || p === segments[i]);
  });
  const literal = (r: Route) => r.path.split('/').filter((p) => !p.startsWith(':')).length;
  return matching.sort((a, b) => literal(b) - literal(a))[0];
}

describe('request body schemas are the handlers\' own', () => {
  let app: App;
  beforeAll(async () => {
    app = await startApp('memory');
  });

  it('every body a handler read was validated with its route\'s doc.body', async () => {
    const send = async (method: string, path: string, json: unknown): Promise<Json> => {
      const res = await app.mgmt.request(method, path, { json });
      return res.text === '' ? undefined : res.json();
    };
    await send('PUT', `${R}/system/configs/authentication.targettoken.enabled`, { value: true });
    await send('PUT', `${R}/system/configs`, { 'user.confirmation.flow.enabled': false });
    const smType = (await send('POST', `${R}/softwaremoduletypes`, [{ key: unique('os'), name: unique('OS'), maxAssignments: 1 }]))[0];
    await send('PUT', `${R}/softwaremoduletypes/${smType.id}`, { description: 'd' });
    const sm = (await send('POST', `${R}/softwaremodules`, [{ name: unique('fw'), version: '1', type: smType.key }]))[0];
    await send('PUT', `${R}/softwaremodules/${sm.id}`, { description: 'd' });
    await send('POST', `${R}/softwaremodules/${sm.id}/metadata`, [{ key: 'k', value: 'v' }]);
    await send('PUT', `${R}/softwaremodules/${sm.id}/metadata/k`, { value: 'w' });
    expect((await upload(app, sm.id, [{ name: 'file', filename: 'a.bin', content: randomBytes(10) }])).status).toBe(201);
    const dsType = (await send('POST', `${R}/distributionsettypes`, [{ key: unique('dst'), name: unique('DST') }]))[0];
    await send('POST', `${R}/distributionsettypes/${dsType.id}/mandatorymoduletypes`, [{ id: smType.id }]);
    const ds = (await send('POST', `${R}/distributionsets`, [{ name: unique('ds'), version: '1', type: dsType.key }]))[0];
    await send('POST', `${R}/distributionsets/${ds.id}/assignedSM`, [{ id: sm.id }]);
    await send('PUT', `${R}/distributionsets/${ds.id}`, { description: 'd' });
    await send('POST', `${R}/distributionsets/${ds.id}/metadata`, [{ key: 'k', value: 'v' }]);
    const targetType = (await send('POST', `${R}/targettypes`, [{ name: unique('tt') }]))[0];
    await send('POST', `${R}/targettypes/${targetType.id}/compatibledistributionsettypes`, [{ id: dsType.id }]);
    const [target] = await send('POST', `${R}/targets`, [{ controllerId: 'body-1' }, { controllerId: 'body-2' }]);
    await send('PUT', `${R}/targets/body-1`, { description: 'd' });
    await send('POST', `${R}/targets/body-1/targettype`, { id: targetType.id });
    await send('POST', `${R}/targets/body-1/metadata`, [{ key: 'k', value: 'v' }]);
    await send('POST', `${R}/targets/body-1/autoConfirm/activate`, { remark: 'r' });
    await send('POST', `${R}/targets/body-1/autoConfirm/deactivate`, undefined);
    const assigned = await send('POST', `${R}/targets/body-1/assignedDS`, [{ id: ds.id, type: 'soft' }]);
    const actionId = assigned.assignedActions[0].id;
    await send('PUT', `${R}/targets/body-1/actions/${actionId}`, { forceType: 'forced' });
    await send('PUT', `${R}/targets/body-1/actions/${actionId}/confirmation`, { confirmation: 'confirmed' });
    await send('POST', `${R}/distributionsets/${ds.id}/assignedTargets`, [{ id: 'body-2' }]);
    const filter = await send('POST', `${R}/targetfilters`, { name: unique('f'), query: 'controllerId==nobody' });
    await send('PUT', `${R}/targetfilters/${filter.id}`, { name: unique('f') });
    await send('POST', `${R}/targetfilters/${filter.id}/autoAssignDS`, { id: ds.id });
    const rollout = await send('POST', `${R}/rollouts`, { name: unique('r'), distributionSetId: ds.id, targetFilterQuery: 'controllerId==body*', amountGroups: 1 });
    await send('PUT', `${R}/rollouts/${rollout.id}`, { description: 'd' });
    await send('POST', `${R}/targettags`, [{ name: unique('tag') }]);
    await send('POST', `${R}/distributionsets/${ds.id}/invalidate`, { actionCancelationType: 'none' });

    const device = `/${app.tenant}/controller/v1/body-1`;
    const headers = { authorization: `TargetToken ${target.securityToken}` };
    const ddi = (method: string, path: string, json: unknown) => app.anon.request(method, `${device}${path}`, { headers, json });
    await ddi('PUT', '/configData', { data: { a: '1' } });
    await ddi('POST', `/deploymentBase/${actionId}/feedback`, { status: { execution: 'proceeding', result: { finished: 'none' } } });
    await ddi('POST', `/cancelAction/${actionId}/feedback`, { status: { execution: 'closed', result: { finished: 'success' } } });
    await ddi('POST', `/confirmationBase/${actionId}/feedback`, { confirmation: 'confirmed' });
    await ddi('PUT', '/installedBase', { name: ds.name, version: ds.version });

    const routes = app.server.server.routes;
    const wrong = seen.flatMap(({ method, path, schema }) => {
      const route = routeOf(routes, method, path);
      const body = route?.doc === false ? undefined : route?.doc?.body;
      return body === schema ? [] : [`${method} ${path} (${route?.path ?? 'no route'}): read with a schema that is not its doc.body`];
    });
    expect(wrong).toEqual([]);
    const covered = new Set(seen.map(({ method, path }) => `${method} ${routeOf(routes, method, path)?.path ?? path}`));
    expect(covered.size).toBeGreaterThanOrEqual(35); // the walk reaches 37 routes that read a body
    expect(covered).toContain('POST /:tenant/controller/v1/:controllerId/deploymentBase/:actionId/feedback');
  });
});
