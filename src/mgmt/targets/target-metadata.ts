import { z } from 'zod';
import type { Services } from '../../app/services.js';
import { AppError, notFound } from '../../domain/errors.js';
import { TARGET, type TargetRecord } from '../../domain/target.js';
import { acceptSingleAsArray, readJson } from '../../http/json.js';
import type { Request, Route } from '../../http/types.js';
import { defineFields, parseListParams, queryEntities, text } from '../../query/index.js';
import { pageOf } from '../kit/hal.js';
import { updateRecord } from '../kit/entities.js';
import { ACCESS } from './access.js';
import { loadTarget } from './target-store.js';
import { principalOf, textParam } from './request.js';

/** Target metadata `{key, value}`. @see spec 4.4; reference §3.1, §8 (key ≤ 128, value ≤ 4000) */
interface Entry {
  readonly key: string;
  readonly value: string;
}

const metadataFields = defineFields<Entry>({
  resource: 'targetmetadata',
  id: (e) => e.key,
  fields: { key: text((e) => e.key), value: text((e) => e.value) },
});

const key = z.string().min(1).max(128);
const value = z.string().max(4000);
const createBody = acceptSingleAsArray(z.object({ key, value: value.nullable().optional() }));
const updateBody = z.object({ key: key.nullable().optional(), value });

export function targetMetadataRoutes(services: Services): Route[] {
  const store = () => services.ctx.store;
  const base = '/rest/v1/targets/:targetId/metadata';
  const targetOf = async (req: Request): Promise<TargetRecord> => (await loadTarget(store(), principalOf(req).tenant, textParam(req, 'targetId'))).value;
  const change = async (req: Request, edit: (t: TargetRecord) => Readonly<Record<string, string>>): Promise<void> => {
    const { tenant, username } = principalOf(req);
    const target = await targetOf(req);
    const now = services.now();
    await updateRecord<TargetRecord>(store(), tenant, TARGET, target.id, 'Target', (t) => ({ ...t, metadata: edit(t), lastModifiedBy: username, lastModifiedAt: now }));
  };
  const entryOf = (t: TargetRecord, k: string): Entry => {
    if (!Object.hasOwn(t.metadata, k)) throw notFound('Target metadata', `${t.controllerId}:${k}`);
    return { key: k, value: t.metadata[k] as string };
  };
  return [
    {
      method: 'GET', path: base, auth: services.mgmtAuth(ACCESS.readMetadata),
      handler: async (req) => {
        const target = await targetOf(req);
        const { limits } = services.ctx.config;
        const params = parseListParams(req.query, {
          defaultLimit: limits.defaultPageSize, maxLimit: limits.maxPageSize, sortFields: metadataFields, filterFields: metadataFields,
          defaultSort: [{ field: 'key', dir: 'ASC' }],
        });
        const entries = Object.entries(target.metadata).map(([k, v]) => ({ key: k, value: v }));
        const now = services.now();
        const page = queryEntities(entries, params, metadataFields, { now, overdueTs: now });
        return { status: 200, json: pageOf(page.content, page.total) };
      },
    },
    {
      method: 'POST', path: base, auth: services.mgmtAuth(ACCESS.writeMetadata),
      handler: async (req) => {
        const items = readJson(req, createBody).map((e) => ({ key: e.key, value: e.value ?? '' }));
        const twice = items.find((e, i) => items.findIndex((x) => x.key === e.key) !== i);
        if (twice !== undefined) throw new AppError('ALREADY_EXISTS', `Target metadata key {${twice.key}} is given twice in the request`);
        await change(req, (t) => {
          const taken = items.find((e) => Object.hasOwn(t.metadata, e.key));
          if (taken !== undefined) throw new AppError('ALREADY_EXISTS', `Target metadata with key {${taken.key}} already exists for target ${t.controllerId}`);
          const count = Object.keys(t.metadata).length + items.length;
          const max = services.quotas.maxMetaDataEntriesPerTarget;
          if (count > max) throw new AppError('QUOTA_EXCEEDED', `Quota exceeded: target ${t.controllerId} would have ${count} metadata entries, at most ${max} are allowed`);
          return { ...t.metadata, ...Object.fromEntries(items.map((e) => [e.key, e.value])) };
        });
        return { status: 201, json: items };
      },
    },
    {
      method: 'GET', path: `${base}/:metadataKey`, auth: services.mgmtAuth(ACCESS.readMetadata),
      handler: async (req) => ({ status: 200, json: entryOf(await targetOf(req), textParam(req, 'metadataKey')) }),
    },
    {
      method: 'PUT', path: `${base}/:metadataKey`, auth: services.mgmtAuth(ACCESS.writeMetadata),
      handler: async (req) => {
        const k = textParam(req, 'metadataKey');
        const body = readJson(req, updateBody);
        await change(req, (t) => {
          entryOf(t, k);
          return { ...t.metadata, [k]: body.value };
        });
        return { status: 200, json: { key: k, value: body.value } };
      },
    },
    {
      method: 'DELETE', path: `${base}/:metadataKey`, auth: services.mgmtAuth(ACCESS.writeMetadata),
      handler: async (req) => {
        const k = textParam(req, 'metadataKey');
        await change(req, (t) => {
          entryOf(t, k);
          const { [k]: _gone, ...rest } = t.metadata;
          return rest;
        });
        return { status: 200 }; // 0.5-0.9 answer 200 (reference §10); newer releases 204
      },
    },
  ];
}
