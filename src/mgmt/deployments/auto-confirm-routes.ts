import { z } from 'zod';
import { activateAutoConfirm, deactivateAutoConfirm } from '../../actors/auto-confirm.js';
import type { Route } from '../../http/types.js';
import { ACCESS } from '../kit/access.js';
import { readOptionalBody, text } from '../kit/body.js';
import { link, segment } from '../kit/hal.js';
import { callerOf, pathText } from '../kit/request.js';
import { loadActorByKeyOr404 } from '../kit/actor-store.js';
import { BY_CONTROLLER_ID } from '../targets/target-store.js';
import type { DeploymentDeps } from './deps.js';

/**
 * Auto-confirmation of a target from the Management API (reference §3.1): GET the state with an
 * `activate` or `deactivate` link; POST activate (optional `{initiator, remark}`) and deactivate, 204.
 */
const autoConfirmResponse = z.looseObject({
  active: z.boolean(), initiator: z.string().optional(), remark: z.string().optional(), activatedAt: z.number().int().optional(),
  _links: z.looseObject({}),
}).meta({ id: 'MgmtTargetAutoConfirm' });
const activateBody = z.object({ initiator: text(64), remark: text(512) });

const emptyAsNull = (s: string | null | undefined): string | null => (s === undefined || s === null || s === '' ? null : s);

export function autoConfirmRoutes(deps: DeploymentDeps): Route[] {
  const base = (cid: string): string => `/rest/v1/targets/${segment(cid)}/autoConfirm`;
  return [
    {
      method: 'GET', path: '/rest/v1/targets/:targetId/autoConfirm', auth: deps.mgmtAuth(ACCESS.target.read),
      doc: { summary: "The target's auto-confirmation state", response: autoConfirmResponse },
      handler: async (req) => {
        const target = (await loadActorByKeyOr404(deps.store, callerOf(req).tenant, BY_CONTROLLER_ID, pathText(req, 'targetId'))).value;
        const ac = target.autoConfirm;
        const json = ac === null
          ? { active: false, _links: { activate: link(req, `${base(target.controllerId)}/activate`) } }
          : {
            active: true,
            ...(ac.initiator === null ? {} : { initiator: ac.initiator }),
            ...(ac.remark === null ? {} : { remark: ac.remark }),
            activatedAt: ac.activatedAt,
            _links: { deactivate: link(req, `${base(target.controllerId)}/deactivate`) },
          };
        return { status: 200, json };
      },
    },
    {
      method: 'POST', path: '/rest/v1/targets/:targetId/autoConfirm/activate', auth: deps.mgmtAuth(ACCESS.target.update), body: 'buffer',
      doc: { body: activateBody, bodyOptional: true, response: { status: 204 } },
      handler: async (req) => {
        const { tenant } = callerOf(req);
        const target = await loadActorByKeyOr404(deps.store, tenant, BY_CONTROLLER_ID, pathText(req, 'targetId'));
        // the body is optional (hawkBit: @RequestBody(required = false))
        const body = readOptionalBody(req, activateBody, {});
        await activateAutoConfirm(deps, tenant, target.id, {
          initiator: emptyAsNull(body.initiator), remark: emptyAsNull(body.remark), fallbackRemark: null,
        }, deps.now());
        return { status: 204 };
      },
    },
    {
      method: 'POST', path: '/rest/v1/targets/:targetId/autoConfirm/deactivate', auth: deps.mgmtAuth(ACCESS.target.update), body: 'buffer',
      doc: { response: { status: 204 } },
      handler: async (req) => {
        const { tenant } = callerOf(req);
        const target = await loadActorByKeyOr404(deps.store, tenant, BY_CONTROLLER_ID, pathText(req, 'targetId'));
        await deactivateAutoConfirm(deps, tenant, target.id);
        return { status: 204 };
      },
    },
  ];
}
