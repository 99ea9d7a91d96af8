/**
 * FIQL (`q=`) and `sort=` fields of the repository resources, over the joined views.
 * @see reference §5 (DistributionSet, DistributionSetType, DistributionSetTag, SoftwareModule, SoftwareModuleType)
 */
import type { DistributionSetTypeRecord, SoftwareModuleTypeRecord, TagRecord } from '../../domain/repository.js';
import { auditFields, bool, defineFields, mapValue, num, text, type Audited, type FieldDef } from '../../query/index.js';
import type { DsView, SmView } from './joins.js';

/** Audit fields over a view whose record sits in one property. */
function auditOf<V>(pick: (v: V) => Audited): Record<string, FieldDef<V>> {
  const out: Record<string, FieldDef<V>> = {};
  for (const [name, def] of Object.entries(auditFields<Audited>())) out[name] = { ...def, get: (v: V) => def.get(pick(v)) };
  return out;
}

export const distributionSetFields = defineFields<DsView>({
  resource: 'DistributionSet',
  id: (v) => v.ds.id,
  fields: {
    id: num((v) => v.ds.id),
    name: text((v) => v.ds.name),
    description: text((v) => v.ds.description),
    version: text((v) => v.ds.version),
    valid: bool((v) => v.ds.valid),
    'type.id': num((v) => v.ds.type),
    'type.key': text((v) => v.type?.key),
    'type.name': text((v) => v.type?.name),
    'module.id': num((v) => v.modules.map((m) => m.sm.id)),
    'module.name': text((v) => v.modules.map((m) => m.sm.name)),
    'tag.name': text((v) => v.tags.map((t) => t.name)),
    ...auditOf((v: DsView) => v.ds),
  },
  aliases: { type: 'type.key', tag: 'tag.name', module: 'module.name' },
  prefixes: { metadata: text((v, key) => mapValue(v.ds.metadata, key)) },
});

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

export const softwareModuleFields = defineFields<SmView>({
  resource: 'SoftwareModule',
  id: (v) => v.sm.id,
  fields: {
    id: num((v) => v.sm.id),
    name: text((v) => v.sm.name),
    description: text((v) => v.sm.description),
    version: text((v) => v.sm.version),
    'type.id': num((v) => v.sm.type),
    'type.key': text((v) => v.type?.key),
    'type.name': text((v) => v.type?.name),
    ...auditOf((v: SmView) => v.sm),
  },
  aliases: { type: 'type.key' },
  prefixes: { metadata: text((v, key) => mapValue(v.sm.metadata, key)?.value) },
});

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

/** A tag with the sets carrying it (loaded only when the query names `distributionset`). */
export interface TagView {
  readonly tag: TagRecord;
  readonly sets: readonly { readonly id: number; readonly name: string }[];
}

export const distributionSetTagFields = defineFields<TagView>({
  resource: 'DistributionSetTag',
  id: (v) => v.tag.id,
  fields: {
    id: num((v) => v.tag.id),
    name: text((v) => v.tag.name),
    description: text((v) => v.tag.description),
    colour: text((v) => v.tag.colour),
    'distributionset.id': num((v) => v.sets.map((s) => s.id)),
    'distributionset.name': text((v) => v.sets.map((s) => s.name)),
    ...auditOf((v: TagView) => v.tag),
  },
});

/** Metadata entries (`GET .../metadata`): key, value and, for modules, targetVisible. */
export interface MetadataEntry {
  readonly key: string;
  readonly value: string;
  readonly targetVisible?: boolean;
}

export const metadataFields = defineFields<MetadataEntry>({
  resource: 'Metadata',
  id: (e) => e.key,
  fields: {
    key: text((e) => e.key),
    value: text((e) => e.value),
    targetvisible: bool((e) => e.targetVisible ?? null),
  },
});
