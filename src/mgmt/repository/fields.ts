/**
 * FIQL (`q=`) and `sort=` fields of the repository resources, with the index paths the list engine
 * plans through (src/query/list.ts): a set's type, modules and tags, a module's type.
 * @see reference §5 (DistributionSet, DistributionSetType, DistributionSetTag, SoftwareModule, SoftwareModuleType)
 */
import {
  DS_TAG, DS_TYPE, SM, SM_TYPE, type DS,
  type DistributionSetRecord, type DistributionSetTypeRecord, type SoftwareModuleRecord, type SoftwareModuleTypeRecord, type TagRecord,
} from '../../domain/repository.js';
import { auditFields, bool, defineFields, mapValue, num, text, via, type Audited, type FieldDef } from '../../query/index.js';
import type { Tenant } from '../../store/port.js';
import { loadMap } from '../../store/reads.js';
import type { RepositoryViewDeps } from './views.js';

/** Audit fields over a view whose record sits in one property. */
function auditOf<V>(pick: (v: V) => Audited): Record<string, FieldDef<V>> {
  const out: Record<string, FieldDef<V>> = {};
  for (const [name, def] of Object.entries(auditFields<Audited>())) out[name] = { ...def, get: (v: V) => def.get(pick(v)) };
  return out;
}

interface Versioned extends Audited {
  readonly id: number;
  readonly name: string;
  readonly description: string | null;
  readonly version: string;
  readonly type: number;
}

/**
 * What sets and modules share: id, name, description, version, audit fields, and their type's id
 * (the kind's `type` index), key and name (through the types, which are few, and a soft-deleted
 * one leaves its key's unique index: they are read rather than looked up).
 */
function versionedFields<V, T extends { readonly key: string; readonly name: string }>(
  pick: (v: V) => Versioned, typeOf: (v: V) => T | undefined, typeKind: string, view: (type: T) => Partial<V>,
): Record<string, FieldDef<V, 'type'>> {
  const byType = via(typeKind, 'type', view);
  return {
    id: num((v) => pick(v).id),
    name: text((v) => pick(v).name),
    description: text((v) => pick(v).description),
    version: text((v) => pick(v).version),
    'type.id': num((v) => pick(v).type, { index: { name: 'type', exact: true } }),
    'type.key': text((v) => typeOf(v)?.key, { join: 'type', via: byType }),
    'type.name': text((v) => typeOf(v)?.name, { join: 'type', via: byType }),
    ...auditOf(pick),
  };
}

/** A set as its query fields see it: what they join is loaded only when a query or sort names it. */
export interface DsQueryView {
  readonly ds: DistributionSetRecord;
  readonly type?: DistributionSetTypeRecord | undefined;
  readonly modules?: readonly SoftwareModuleRecord[];
  readonly tags?: readonly TagRecord[];
}

export const distributionSetFields = defineFields<DsQueryView, typeof DS>({
  resource: 'DistributionSet',
  id: (v) => v.ds.id,
  fields: {
    ...versionedFields((v: DsQueryView) => v.ds, (v) => v.type, DS_TYPE, (type: DistributionSetTypeRecord) => ({ type })),
    valid: bool((v) => v.ds.valid),
    'module.id': num((v) => v.ds.modules, { index: { name: 'module', exact: true } }),
    'module.name': text((v) => (v.modules ?? []).map((m) => m.name), { join: 'modules' }),
    'tag.name': text((v) => (v.tags ?? []).map((t) => t.name), { join: 'tags', via: via(DS_TAG, 'tag', (r: TagRecord): Partial<DsQueryView> => ({ tags: [r] }), 'name') }),
  },
  aliases: { type: 'type.key', tag: 'tag.name', module: 'module.name' },
  prefixes: { metadata: text((v, key) => mapValue(v.ds.metadata, key)) },
});

/** Sets with what the query names joined. */
export async function joinSetsForQuery(
  deps: RepositoryViewDeps, tenant: Tenant, sets: readonly DistributionSetRecord[], joins: ReadonlySet<string>,
): Promise<DsQueryView[]> {
  if (joins.size === 0) return sets.map((ds) => ({ ds }));
  const { store } = deps;
  const types = joins.has('type') ? await loadMap<DistributionSetTypeRecord>(store, tenant, DS_TYPE, sets.map((d) => d.type)) : undefined;
  const modules = joins.has('modules') ? await loadMap<SoftwareModuleRecord>(store, tenant, SM, sets.flatMap((d) => d.modules)) : undefined;
  const tags = joins.has('tags') ? await loadMap<TagRecord>(store, tenant, DS_TAG, sets.flatMap((d) => d.tags)) : undefined;
  return sets.map((ds) => ({
    ds,
    type: types?.get(ds.type),
    modules: modules === undefined ? undefined : ds.modules.map((id) => modules.get(id)).filter((m) => m !== undefined),
    tags: tags === undefined ? undefined : ds.tags.map((id) => tags.get(id)).filter((t) => t !== undefined),
  }));
}

/** What both type kinds are queried by. */
type TypeLike = Audited & { readonly id: number; readonly key: string; readonly name: string; readonly description: string | null };
function typeFields<T extends TypeLike>() {
  return {
    id: num((t: T) => t.id),
    key: text((t: T) => t.key),
    name: text((t: T) => t.name),
    description: text((t: T) => t.description),
    ...auditFields<T>(),
  };
}

export const distributionSetTypeFields = defineFields<DistributionSetTypeRecord, typeof DS_TYPE>({
  resource: 'DistributionSetType',
  id: (t) => t.id,
  fields: typeFields<DistributionSetTypeRecord>(),
});

/** A module as its query fields see it: its type is loaded only when a query or sort names it. */
export interface SmQueryView {
  readonly sm: SoftwareModuleRecord;
  readonly type?: SoftwareModuleTypeRecord | undefined;
}

export const softwareModuleFields = defineFields<SmQueryView, typeof SM>({
  resource: 'SoftwareModule',
  id: (v) => v.sm.id,
  fields: {
    ...versionedFields((v: SmQueryView) => v.sm, (v) => v.type, SM_TYPE, (type: SoftwareModuleTypeRecord) => ({ type })),
  },
  aliases: { type: 'type.key' },
  prefixes: { metadata: text((v, key) => mapValue(v.sm.metadata, key)?.value) },
});

/** Modules with their type when the query names it. */
export async function joinModulesForQuery(
  deps: RepositoryViewDeps, tenant: Tenant, modules: readonly SoftwareModuleRecord[], joins: ReadonlySet<string>,
): Promise<SmQueryView[]> {
  const types = joins.has('type') ? await loadMap<SoftwareModuleTypeRecord>(deps.store, tenant, SM_TYPE, modules.map((m) => m.type)) : undefined;
  return modules.map((sm) => ({ sm, type: types?.get(sm.type) }));
}

export const softwareModuleTypeFields = defineFields<SoftwareModuleTypeRecord, typeof SM_TYPE>({
  resource: 'SoftwareModuleType',
  id: (t) => t.id,
  fields: { ...typeFields<SoftwareModuleTypeRecord>(), maxassignments: num((t) => t.maxAssignments) },
});
