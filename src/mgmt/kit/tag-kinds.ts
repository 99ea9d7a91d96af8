import { z } from 'zod';
import type { DS } from '../../domain/repository.js';
import { type TagRecord } from '../../domain/repository.js';
import type { TARGET } from '../../domain/target.js';
import type { Request, Route } from '../../http/types.js';
import { auditFields, num, text, type FieldDef } from '../../query/index.js';
import { SCAN_ALL, loadRecords } from '../../store/reads.js';
import type { Access } from './access.js';
import { colour, description, name } from './body.js';
import type { KitDeps } from './deps.js';
import { auditJson, link } from './hal.js';
import { jsonOf, lookUpdate, namedRoutes, type ListPart } from './named.js';
import { tagResponse } from './responses.js';
import { deleteRecord } from './store.js';
import { taggingRoutes, type TaggedMembers } from './tag-members.js';

/**
 * The two tag kinds, target tags and distribution set tags, one way: the same JSON, bodies and
 * fields, the named-entity routes and the member routes of kit/tag-members.ts.
 * @see reference §3.2, §3.11; spec 2.2, 4.2
 */
export interface TagKind<M, Key extends string | number, V> {
  readonly kind: 'targettag' | 'dstag';
  /** The collection, e.g. `/rest/v1/targettags`. */
  readonly path: string;
  readonly idParam: string;
  readonly access: Access;
  /** The link to the members in single-tag answers: `assignedTargets`, `assignedDistributionSets`. */
  readonly membersRel: string;
  readonly list: ListPart<'targettag' | 'dstag', V>;
  /** The tagged kind (its multi index `tag` holds each member under its tags). */
  readonly memberKind: typeof TARGET | typeof DS;
  readonly members: Omit<TaggedMembers<M, Key>, 'path' | 'tagKind' | 'tagParam' | 'access'>;
}

/** Tags per commit when a deleted tag is taken off its members. */
const UNTAG_BATCH = 1000;

const createItem = z.object({ name, description, colour });

/** The created/modified fields and id, name, description, colour of a tag, read through `pick`. */
export function tagFields<V>(pick: (v: V) => TagRecord): Record<string, FieldDef<V, 'name'>> {
  const audit: Record<string, FieldDef<V>> = {};
  for (const [field, def] of Object.entries(auditFields<TagRecord>())) audit[field] = { ...def, get: (v: V) => def.get(pick(v)) };
  return {
    id: num((v) => pick(v).id),
    name: text((v) => pick(v).name, { index: { name: 'name', unique: true } }),
    description: text((v) => pick(v).description),
    colour: text((v) => pick(v).colour),
    ...audit,
  };
}

/** hawkBit's MgmtTag (NON_NULL): single-tag answers add the link to the members. */
export function tagJson(path: string, membersRel: string) {
  return (req: Request, t: TagRecord, full: boolean): object => {
    const self = `${path}/${t.id}`;
    const out: Record<string, unknown> = { id: t.id, name: t.name };
    if (t.description !== null) out['description'] = t.description;
    if (t.colour !== null) out['colour'] = t.colour;
    Object.assign(out, auditJson(t));
    out['_links'] = full
      ? { self: link(req, self), [membersRel]: link(req, `${self}/assigned?offset=0&limit=50`) }
      : { self: link(req, self) };
    return out;
  };
}

export function tagRoutes<M, Key extends string | number, V>(deps: KitDeps, spec: TagKind<M, Key, V>): Route[] {
  const tagPath = `${spec.path}/:${spec.idParam}`;
  return [
    ...namedRoutes(deps, {
      kind: spec.kind,
      path: spec.path,
      idParam: spec.idParam,
      access: spec.access,
      render: jsonOf(tagJson(spec.path, spec.membersRel)),
      schema: tagResponse,
      list: spec.list,
      create: {
        item: createItem,
        unique: ['name'],
        build: async (_ctx, items) => items.map((item) => (id, audit) => ({
          id, name: item.name, description: item.description ?? null, colour: item.colour ?? null, ...audit,
        })),
      },
      update: lookUpdate(true),
      // the tag goes off every member first, so none keeps a dangling tag id
      remove: async (ctx, tag) => {
        const ids = (await deps.store.members(ctx.tenant, spec.memberKind, 'tag', String(tag.id), SCAN_ALL)).ids;
        for (let i = 0; i < ids.length; i += UNTAG_BATCH) {
          const members = await loadRecords<M>(deps.store, ctx.tenant, spec.memberKind, ids.slice(i, i + UNTAG_BATCH));
          await spec.members.setTag(ctx.tenant, members.map((m) => m.value), tag.id, false, ctx.by);
        }
        await deleteRecord(deps.store, ctx.tenant, spec.kind, tag.id);
      },
    }),
    ...taggingRoutes(deps, { ...spec.members, path: tagPath, tagKind: spec.kind, tagParam: spec.idParam, access: spec.access }),
  ];
}
