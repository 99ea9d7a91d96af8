import type { DistributionSetRecord } from '../../domain/repository.js';
import { UPDATE_STATUSES, type TargetRecord } from '../../domain/target.js';
import type { TargetTypeRecord } from '../../domain/targeting.js';
import { bool, defineFields, mapValue, num, oneOf, text, timestamp, type FieldDef } from '../../query/index.js';
import type { PollRecord } from '../../store/port.js';

/**
 * A target as the Target query fields see it: the record plus what queries join (reference §5):
 * its last poll, tag names, target type, assigned and installed distribution sets. The joined parts
 * are loaded only when a query or sort names them (see target-query.ts), so they may be absent.
 */
export interface TargetView {
  readonly t: TargetRecord;
  readonly poll?: PollRecord | undefined;
  readonly tagNames?: readonly string[];
  readonly type?: TargetTypeRecord | undefined;
  readonly assigned?: DistributionSetRecord | undefined;
  readonly installed?: DistributionSetRecord | undefined;
}

/**
 * The address a target was last seen at: the newest of the poll's (written behind by DDI) and the
 * one stored on the record (Management API, DMF).
 */
export function addressOf(t: TargetRecord, poll: PollRecord | undefined): string | null {
  if (poll?.address != null && (t.address === null || poll.at >= t.lastModifiedAt)) return poll.address;
  return t.address;
}

/** What a field needs loaded beside the record. */
export type Join = 'poll' | 'tags' | 'type' | 'ds';

const audit = (): Record<string, FieldDef<TargetView>> => ({
  createdat: timestamp((v: TargetView) => v.t.createdAt),
  createdby: text((v: TargetView) => v.t.createdBy),
  lastmodifiedat: timestamp((v: TargetView) => v.t.lastModifiedAt),
  lastmodifiedby: text((v: TargetView) => v.t.lastModifiedBy),
});

/**
 * TargetFields of reference §5. Index names are those of `targetSchema` (src/domain/target.ts);
 * the joined fields are planned by target-plan.ts through the joined entity's id.
 */
export const targetFields = defineFields<TargetView>({
  resource: 'target',
  id: (v) => v.t.id,
  fields: {
    controllerid: text((v) => v.t.controllerId, { index: { name: 'controllerId', unique: true } }),
    name: text((v) => v.t.name),
    description: text((v) => v.t.description),
    ...audit(),
    updatestatus: oneOf(UPDATE_STATUSES, (v) => v.t.updateStatus, { index: { name: 'updateStatus', exact: true } }),
    ipaddress: text((v) => addressOf(v.t, v.poll)),
    group: text((v) => v.t.group),
    'assignedds.name': text((v) => v.assigned?.name ?? null),
    'assignedds.version': text((v) => v.assigned?.version ?? null),
    'installedds.name': text((v) => v.installed?.name ?? null),
    'installedds.version': text((v) => v.installed?.version ?? null),
    'tag.name': text((v) => v.tagNames ?? []),
    lastcontrollerrequestat: timestamp((v) => v.poll?.at ?? null),
    'type.id': num((v) => v.t.targetType),
    'type.key': text((v) => v.type?.key ?? null),
    'type.name': text((v) => v.type?.name ?? null),
    autoconfirm: bool((v) => v.t.autoConfirm !== null),
  },
  aliases: {
    id: 'controllerid',
    tag: 'tag.name',
    assignedds: 'assignedds.name',
    installedds: 'installedds.name',
    type: 'type.key',
    targettype: 'type.key',
    'targettype.id': 'type.id',
    'targettype.key': 'type.key',
    'targettype.name': 'type.name',
  },
  prefixes: {
    attribute: text((v, key) => mapValue(v.t.attributes, key) ?? null),
    metadata: text((v, key) => mapValue(v.t.metadata, key) ?? null),
  },
});

/** Which join each field name needs (canonical names; aliases resolve to these). */
export const JOIN_OF: ReadonlyMap<string, Join> = new Map<string, Join>([
  ['ipaddress', 'poll'],
  ['lastcontrollerrequestat', 'poll'],
  ['tag.name', 'tags'],
  ['type.key', 'type'],
  ['type.name', 'type'],
  ['assignedds.name', 'ds'],
  ['assignedds.version', 'ds'],
  ['installedds.name', 'ds'],
  ['installedds.version', 'ds'],
]);

export const DEFAULT_TARGET_SORT = [{ field: 'controllerid', dir: 'ASC' as const }];
