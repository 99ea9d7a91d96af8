/**
 * FIQL (`q=`) and `sort=` fields of the repository resources, with the index paths the list engine
 * plans through (src/query/list.ts): a set's type, modules and tags, a module's type.
 * @see reference §5 (DistributionSet, DistributionSetType, DistributionSetTag, SoftwareModule, SoftwareModuleType)
 */
import {
  DS_TAG, DS_TYPE, SM, SM_TYPE,
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

/** A set as its query fields see it: what they join is loaded only when a query or sort names it. */
export interface DsQueryView {
  readonly ds: DistributionSetRecord;
  readonly type?: DistributionSetTypeRecord | undefined;
  readonly modules?: readonly SoftwareModuleRecord[];
  readonly tags?: readonly TagRecord[];
}

// types are few, and a soft-deleted one leaves its key's unique index: read them all rather than look the key up
const setType = via<DsQueryView, DistributionSetTypeRecord>(DS_TYPE, 'type', (r) => ({ type: r }));

export const distributionSetFields = defineFields<DsQueryView>({
  resource: 'DistributionSet',
  id: (v) => v.ds.id,
  fields: {
    id: num((v) => v.ds.id),
    name: text((v) => v.ds.name),
    description: text((v) => v.ds.description),
    version: text((v) => v.ds.version),
    valid: bool((v) => v.ds.valid),
    'type.id': num((v) => v.ds.type, { index: { name: 'type', exact: true } }),
    'type.key': text((v) => v.type?.key, { join: 'type', via: setType }),
    'type.name': text((v) => v.type?.name, { join: 'type', via: setType }),
    'module.id': num((v) => v.ds.modules, { index: { name: 'module', exact: true } }),
    'module.name': text((v) => (v.modules ?? []).map((m) => m.name), { join: 'modules' }),
    'tag.name': text((v) => (v.tags ?? []).map((t) => t.name), { join: 'tags', via: via<DsQueryView, TagRecord>(DS_TAG, 'tag', (r) => ({ tags: [r] }), 'name') }),
    ...auditOf((v: DsQueryView) => v.ds),
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

export const distributionSetTypeFields = defineFields<DistributionSetTypeRecord>({
  resource: 'DistributionSetType',
  id: (t) => t.id,
  fields: {
    id: num((t) => t.id),
    key: text((t) => t.key),
    name: text((t) => t.name),
    description: text((t) => t.description),
    ...auditFields<DistributionSetTypeRecord>(),
  },
});

/** A module as its query fields see it: its type is loaded only when a query or sort names it. */
export interface SmQueryView {
  readonly sm: SoftwareModuleRecord;
  readonly type?: SoftwareModuleTypeRecord | undefined;
}

const moduleType = via<SmQueryView, SoftwareModuleTypeRecord>(SM_TYPE, 'type', (r) => ({ type: r }));

export const softwareModuleFields = defineFields<SmQueryView>({
  resource: 'SoftwareModule',
  id: (v) => v.sm.id,
  fields: {
    id: num((v) => v.sm.id),
    name: text((v) => v.sm.name),
    description: text((v) => v.sm.description),
    version: text((v) => v.sm.version),
    'type.id': num((v) => v.sm.type, { index: { name: 'type', exact: true } }),
    'type.key': text((v) => v.type?.key, { join: 'type', via: moduleType }),
    'type.name': text((v) => v.type?.name, { join: 'type', via: moduleType }),
    ...auditOf((v: SmQueryView) => v.sm),
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

export const softwareModuleTypeFields = defineFields<SoftwareModuleTypeRecord>({
  resource: 'SoftwareModuleType',
  id: (t) => t.id,
  fields: {
    id: num((t) => t.id),
    key: text((t) => t.key),
    name: text((t) => t.name),
    description: text((t) => t.description),
    maxassignments: num((t) => t.maxAssignments),
    ...auditFields<SoftwareModuleTypeRecord>(),
  },
});
