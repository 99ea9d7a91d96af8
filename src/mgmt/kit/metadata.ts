import { z } from 'zod';
import { AppError, notFound } from '../../domain/errors.js';
import type { Request, Route } from '../../http/types.js';
import { bool as boolField, defineFields, queryEntities, text } from '../../query/index.js';
import type { Tenant } from '../../store/port.js';
import { pageSchema } from '../../apidoc/shapes.js';
import type { Access } from './access.js';
import { bool, many, metadataKey, metadataValue, readBody, str } from './body.js';
import type { KitDeps } from './deps.js';
import { pageOf } from './hal.js';
import { metadataResponse } from './responses.js';
import { evalContext, listParams } from './list.js';
import { callerOf, pathText } from './request.js';
import { managementApi } from '../../domain/tenant-config.js';

/** The OpenAPI sentence of the writes whose 1.x reply differs. */
const WRITE_1X = 'With `compat.managementApi` "1.x" (config.yaml, or the tenant configuration key of that name) the reply is hawkBit 1.x\'s: ';

/**
 * Metadata of targets, software modules and distribution sets (`.../{id}/metadata[/{key}]`): create
 * (201 with the created entries, which 0.5 clients read), paged list, and single-entry read, update
 * (200 with the entry, spec 4.4/4.5) and delete (204, the newest release's code; 0.5-0.9 answered 200).
 * With `compat.managementApi` "1.x" the writes answer as hawkBit 1.x's resources (createMetadata
 * `ResponseEntity.status(CREATED).build()`, updateMetadata `noContent()`): create 201 and update 204,
 * both without a body. Keys are unique per owner; a quota caps their number.
 * @see spec 2.4, 4.3, 4.4; reference §3.1, §3.9, §3.12, §10
 */
export interface MetadataEntry {
  readonly key: string;
  readonly value: string;
  /** Software module entries only: whether devices see the entry. */
  readonly targetVisible?: boolean;
}

/** The record that holds the entries, as a resource declares it. */
export interface MetadataOwner<O> {
  /** The owner's path, e.g. `/rest/v1/softwaremodules/:softwareModuleId`. */
  readonly base: string;
  readonly access: Pick<Access, 'read' | 'update'>;
  /** hawkBit's entity name of one entry: TargetMetadata, SoftwareModuleMetadata, ... */
  readonly entryLabel: string;
  readonly quota: number;
  /** Entries carry `targetVisible` (software modules). */
  readonly targetVisible: boolean;
  /** The owner the request names (404 when there is none). */
  load(req: Request, tenant: Tenant): Promise<O>;
  entries(owner: O): MetadataEntry[];
  /**
   * Replaces the owner's entries with `edit` of the current ones, with compare-and-set (retried:
   * `edit` sees the entries as they are then and may throw to refuse). Stamps who changed it.
   */
  change(tenant: Tenant, owner: O, by: string, edit: (entries: MetadataEntry[]) => MetadataEntry[]): Promise<void>;
}

const createItem = z.object({ key: metadataKey, value: metadataValue.nullish(), targetVisible: bool().nullish() });
const createBody = many(createItem);
const updateBody = z.object({ key: str().nullish(), value: metadataValue.nullish(), targetVisible: bool().nullish() });
const BY_KEY = [{ field: 'key', dir: 'ASC' as const }];

const entryFields = defineFields<MetadataEntry, never>({
  resource: 'Metadata',
  id: (e) => e.key,
  fields: { key: text((e) => e.key), value: text((e) => e.value) },
});
const visibleEntryFields = defineFields<MetadataEntry, never>({
  resource: 'Metadata',
  id: (e) => e.key,
  fields: { key: text((e) => e.key), value: text((e) => e.value), targetvisible: boolField((e) => e.targetVisible ?? null) },
});

export function metadataRoutes<O>(deps: KitDeps, owner: MetadataOwner<O>): Route[] {
  const base = `${owner.base}/metadata`;
  const read = deps.mgmtAuth(owner.access.read);
  const update = deps.mgmtAuth(owner.access.update);
  const fields = owner.targetVisible ? visibleEntryFields : entryFields;
  const json = (e: MetadataEntry) =>
    (owner.targetVisible ? { key: e.key, value: e.value, targetVisible: e.targetVisible ?? false } : { key: e.key, value: e.value });
  const missing = (key: string) => notFound(owner.entryLabel, key);
  const find = (entries: readonly MetadataEntry[], key: string): MetadataEntry => {
    const entry = entries.find((e) => e.key === key);
    if (entry === undefined) throw missing(key);
    return entry;
  };
  const speaks1x = async (req: Request): Promise<boolean> => managementApi(await deps.tenantConfig.view(callerOf(req).tenant)) === '1.x';
  const change = async (req: Request, edit: (entries: MetadataEntry[]) => MetadataEntry[]): Promise<void> => {
    const { tenant, username } = callerOf(req);
    await owner.change(tenant, await owner.load(req, tenant), username, edit);
  };
  return [
    {
      method: 'POST', path: base, auth: update,
      doc: { body: createBody, response: { status: 201, schema: z.array(metadataResponse) }, description: `${WRITE_1X}201 without a body.` },
      handler: async (req) => {
        const added: MetadataEntry[] = readBody(req, createBody).map((b) => ({
          key: b.key, value: b.value ?? '', ...(owner.targetVisible ? { targetVisible: b.targetVisible ?? false } : {}),
        }));
        await change(req, (entries) => {
          const taken = new Set(entries.map((e) => e.key));
          for (const e of added) {
            if (taken.has(e.key)) throw new AppError('ALREADY_EXISTS', `${owner.entryLabel} with key {${e.key}} already exists`);
            taken.add(e.key);
          }
          if (taken.size > owner.quota) {
            throw new AppError('QUOTA_EXCEEDED', `Quota exceeded: ${taken.size} metadata entries; at most ${owner.quota} are allowed.`);
          }
          return [...entries, ...added];
        });
        if (await speaks1x(req)) return { status: 201 };
        return { status: 201, json: added.map(json) };
      },
    },
    {
      method: 'GET', path: base, auth: read, doc: { list: true, response: pageSchema(metadataResponse) },
      handler: async (req) => {
        const { tenant } = callerOf(req);
        const found = await owner.load(req, tenant);
        const params = listParams(deps.limits, req.query, fields, BY_KEY);
        const page = queryEntities(owner.entries(found), params, fields, await evalContext(deps, tenant));
        return { status: 200, json: pageOf(page.content.map(json), page.total) };
      },
    },
    {
      method: 'GET', path: `${base}/:metadataKey`, auth: read, doc: { response: metadataResponse },
      handler: async (req) => {
        const found = await owner.load(req, callerOf(req).tenant);
        return { status: 200, json: json(find(owner.entries(found), pathText(req, 'metadataKey'))) };
      },
    },
    {
      method: 'PUT', path: `${base}/:metadataKey`, auth: update,
      doc: { body: updateBody, response: metadataResponse, description: `${WRITE_1X}204 without a body.` },
      handler: async (req) => {
        const key = pathText(req, 'metadataKey');
        const body = readBody(req, updateBody);
        await change(req, (entries) => {
          const e = find(entries, key);
          const updated: MetadataEntry = {
            key, value: body.value ?? e.value,
            ...(owner.targetVisible ? { targetVisible: body.targetVisible ?? e.targetVisible ?? false } : {}),
          };
          return entries.map((x) => (x.key === key ? updated : x));
        });
        // spec 4.4/4.5: 200 with the entry as stored (0.x scripts read it; hawkBit 1.x sends 204)
        if (await speaks1x(req)) return { status: 204 };
        const stored = owner.entries(await owner.load(req, callerOf(req).tenant));
        return { status: 200, json: json(find(stored, key)) };
      },
    },
    {
      method: 'DELETE', path: `${base}/:metadataKey`, auth: update, doc: { response: { status: 204 } },
      handler: async (req) => {
        const key = pathText(req, 'metadataKey');
        await change(req, (entries) => {
          find(entries, key);
          return entries.filter((e) => e.key !== key);
        });
        return { status: 204 };
      },
    },
  ];
}
