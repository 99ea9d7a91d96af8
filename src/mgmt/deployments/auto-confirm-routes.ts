import { z } from 'zod';
import { activateAutoConfirm, deactivateAutoConfirm } from '../../actors/auto-confirm.js';
import type { Services } from '../../app/services.js';
import { readJson } from '../../http/json.js';
import { segment } from '../../http/links.js';
import type { Request, Route } from '../../http/types.js';
import { link } from '../kit/hal.js';
import { targetByControllerId } from './lookups.js';

/**
 * Auto-confirmation of a target from the Management API (reference §3.1): GET the state with an
 * `activate` or `deactivate` link; POST activate (optional `{initiator, remark}`) and deactivate, 204.
 */
const activateBody = z.object({ initiator: z.string().max(64).nullish(), remark: z.string().max(512).nullish() });

const tenantOf = (req: Request): string => req.principal?.tenant ?? '';
const emptyAsNull = (s: string | null | undefined): string | null => (s === undefined || s === null || s === '' ? null : s);

export function autoConfirmRoutes(services: Services): Route[] {
  const store = () => services.ctx.store;
  const base = (cid: string): string => `/rest/v1/targets/${segment(cid)}/autoConfirm`;
  return [
    {
      method: 'GET', path: '/rest/v1/targets/:targetId/autoConfirm', auth: services.mgmtAuth('READ_TARGET'),
      handler: async (req) => {
        const target = (await targetByControllerId(store(), tenantOf(req), req.params['targetId'] ?? '')).value;
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
      method: 'POST', path: '/rest/v1/targets/:targetId/autoConfirm/activate', auth: services.mgmtAuth('UPDATE_TARGET'), body: 'buffer',
      handler: async (req) => {
        const tenant = tenantOf(req);
        const target = await targetByControllerId(store(), tenant, req.params['targetId'] ?? '');
        // the body is optional (hawkBit: @RequestBody(required = false))
        const body = req.body === undefined || req.body.length === 0 ? {} : readJson(req, activateBody);
        await activateAutoConfirm(services, tenant, target.id, {
          initiator: emptyAsNull(body.initiator), remark: emptyAsNull(body.remark), fallbackRemark: null,
        }, services.now());
        return { status: 204 };
      },
    },
    {
      method: 'POST', path: '/rest/v1/targets/:targetId/autoConfirm/deactivate', auth: services.mgmtAuth('UPDATE_TARGET'), body: 'buffer',
      handler: async (req) => {
        const tenant = tenantOf(req);
        const target = await targetByControllerId(store(), tenant, req.params['targetId'] ?? '');
        await deactivateAutoConfirm(services, tenant, target.id);
        return { status: 204 };
      },
    },
  ];
}
