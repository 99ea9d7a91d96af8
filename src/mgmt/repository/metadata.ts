/**
 * Metadata entries of software modules and distribution sets (`.../{id}/metadata[/{key}]`): create
 * (201 with the created entries), paged list, and single-entry read, update (200 with the entry,
 * the spec's 0.5-0.9 behaviour) and delete. Keys are unique per owner; a quota caps their number.
 * @see spec 2.4 and 4.3, reference §3.9 and §3.12
 */
import { z } from 'zod';
import type { Services } from '../../app/services.js';
import { touched, type Audit } from '../../domain/audit.js';
import { AppError, notFound } from '../../domain/errors.js';
import { acceptSingleAsArray, readJson } from '../../http/json.js';
import type { Authenticator, Request, Route } from '../../http/types.js';
import { queryEntities } from '../../query/index.js';
import { loadOr404, updateRecord } from '../kit/entities.js';
import { pageOf } from '../kit/hal.js';
import { principalOf } from './auth.js';
import { metadataFields, type MetadataEntry } from './fields.js';
import { listParams } from './listing.js';
import { pathId } from './params.js';
import { assertLive } from './rules.js';
import { metadataKey, metadataValue } from './schemas.js';

export interface MetadataOwner<R extends Audit & { readonly id: number; readonly deleted: boolean }> {
  readonly kind: string;
  readonly label: string;
  /** hawkBit's entity name in messages: SoftwareModuleMetadata, DistributionSetMetadata. */
  readonly entryLabel: string;
  readonly idParam: string;
  readonly base: string;
  readonly quota: number;
  /** Software module entries carry `targetVisible`. */
  readonly targetVisible: boolean;
  readonly entries: (owner: R) => MetadataEntry[];
  /** The owner with its entries replaced by these. */
  readonly withEntries: (owner: R, entries: readonly MetadataEntry[]) => R;
}

const createBody = acceptSingleAsArray(z.object({ key: metadataKey, value: metadataValue.nullish(), targetVisible: z.boolean().nullish() }));
const updateBody = z.object({ key: z.string().nullish(), value: metadataValue.nullish(), targetVisible: z.boolean().nullish() });
const BY_KEY = [{ field: 'key', dir: 'ASC' as const }];

export function metadataRoutes<R extends Audit & { readonly id: number; readonly deleted: boolean }>(
  services: Services, owner: MetadataOwner<R>, auth: { read: Authenticator; update: Authenticator },
): Route[] {
  const store = () => services.ctx.store;
  const ownerId = (req: Request) => pathId(req, owner.idParam, owner.label);
  const json = (e: MetadataEntry) => (owner.targetVisible ? { key: e.key, value: e.value, targetVisible: e.targetVisible ?? false } : { key: e.key, value: e.value });
  const keyOf = (req: Request) => req.params['metadataKey'] ?? '';
  const change = (req: Request, edit: (r: R, entries: MetadataEntry[]) => MetadataEntry[]) => {
    const { tenant, username } = principalOf(req);
    return updateRecord<R>(store(), tenant, owner.kind, ownerId(req), owner.label, (r) => {
      assertLive(r, owner.label);
      return touched(owner.withEntries(r, edit(r, owner.entries(r))), username, services.now());
    });
  };
  const missing = (key: string) => notFound(owner.entryLabel, key);

  return [
    {
      method: 'POST', path: `${owner.base}/metadata`, auth: auth.update,
      handler: async (req) => {
        const body = readJson(req, createBody);
        const added: MetadataEntry[] = body.map((b) => ({ key: b.key, value: b.value ?? '', ...(owner.targetVisible ? { targetVisible: b.targetVisible ?? false } : {}) }));
        await change(req, (_r, entries) => {
          const taken = new Set(entries.map((e) => e.key));
          for (const e of added) {
            if (taken.has(e.key)) throw new AppError('ALREADY_EXISTS', `${owner.entryLabel} with key '${e.key}' already exists`);
            taken.add(e.key);
          }
          if (taken.size > owner.quota) {
            throw new AppError('QUOTA_EXCEEDED', `${owner.label} may hold at most ${owner.quota} metadata entries, would hold ${taken.size}`);
          }
          return [...entries, ...added];
        });
        return { status: 201, json: added.map(json) };
      },
    },
    {
      method: 'GET', path: `${owner.base}/metadata`, auth: auth.read,
      handler: async (req) => {
        const { tenant } = principalOf(req);
        const params = listParams(services, req, metadataFields, BY_KEY);
        const found = await loadOr404<R>(store(), tenant, owner.kind, ownerId(req), owner.label);
        const now = services.now();
        const page = queryEntities(owner.entries(found.value), params, metadataFields, { now, overdueTs: now });
        return { status: 200, json: pageOf(page.content.map(json), page.total) };
      },
    },
    {
      method: 'GET', path: `${owner.base}/metadata/:metadataKey`, auth: auth.read,
      handler: async (req) => {
        const found = await loadOr404<R>(store(), principalOf(req).tenant, owner.kind, ownerId(req), owner.label);
        const entry = owner.entries(found.value).find((e) => e.key === keyOf(req));
        if (entry === undefined) throw missing(keyOf(req));
        return { status: 200, json: json(entry) };
      },
    },
    {
      method: 'PUT', path: `${owner.base}/metadata/:metadataKey`, auth: auth.update,
      handler: async (req) => {
        const body = readJson(req, updateBody);
        const key = keyOf(req);
        let updated: MetadataEntry | undefined;
        await change(req, (_r, entries) => {
          const i = entries.findIndex((e) => e.key === key);
          const e = entries[i];
          if (e === undefined) throw missing(key);
          updated = {
            key, value: body.value ?? e.value,
            ...(owner.targetVisible ? { targetVisible: body.targetVisible ?? e.targetVisible ?? false } : {}),
          };
          return entries.with(i, updated);
        });
        if (updated === undefined) throw missing(key);
        return { status: 200, json: json(updated) };
      },
    },
    {
      method: 'DELETE', path: `${owner.base}/metadata/:metadataKey`, auth: auth.update,
      handler: async (req) => {
        const key = keyOf(req);
        await change(req, (_r, entries) => {
          if (!entries.some((e) => e.key === key)) throw missing(key);
          return entries.filter((e) => e.key !== key);
        });
        return { status: 200 }; // 0.5-0.9 answer 200 (reference §10); newer releases 204
      },
    },
  ];
}
