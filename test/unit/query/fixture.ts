import { auditFields, bool, defineFields, mapValue, num, oneOf, text, timestamp } from '../../../src/query/index.js';

/** A small Target-like entity and its field map, shared by the query tests. */
export interface Dev {
  readonly id: number;
  readonly controllerId: string;
  readonly name: string;
  readonly description: string | null;
  readonly updateStatus: string;
  readonly tags: readonly string[];
  readonly attributes: Readonly<Record<string, string>>;
  readonly lastPoll: number | null;
  readonly autoConfirm: boolean;
  readonly weight: number | null;
  readonly ds: { readonly name: string; readonly version: string } | null;
  readonly createdAt: number;
  readonly createdBy: string;
  readonly lastModifiedAt: number;
  readonly lastModifiedBy: string;
}

export const STATUSES = ['unknown', 'in_sync', 'pending', 'error', 'registered'] as const;

export const devFields = defineFields<Dev, string>({
  resource: 'target',
  id: (d) => d.id,
  fields: {
    id: text((d) => d.controllerId, { index: { name: 'cid', unique: true } }),
    controllerid: text((d) => d.controllerId),
    name: text((d) => d.name, { index: { name: 'name' } }),
    description: text((d) => d.description),
    updatestatus: oneOf(STATUSES, (d) => d.updateStatus, { index: { name: 'status', exact: true } }),
    'tag.name': text((d) => d.tags, { index: { name: 'tag' } }),
    'assignedds.name': text((d) => d.ds?.name),
    'assignedds.version': text((d) => d.ds?.version, { index: { name: 'dsversion', exact: true } }),
    lastcontrollerrequestat: timestamp((d) => d.lastPoll),
    autoconfirm: bool((d) => d.autoConfirm, { index: { name: 'autoconfirm' } }),
    weight: num((d) => d.weight, { index: { name: 'weight' } }),
    ...auditFields<Dev>(),
  },
  aliases: { tag: 'tag.name', assignedds: 'assignedds.name' },
  prefixes: { attribute: text((d, key) => mapValue(d.attributes, key)) },
});

let nextId = 1;
export function dev(over: Partial<Dev> = {}): Dev {
  const id = over.id ?? nextId++;
  return {
    id,
    controllerId: `dev-${id}`,
    name: `Device ${id}`,
    description: null,
    updateStatus: 'unknown',
    tags: [],
    attributes: {},
    lastPoll: null,
    autoConfirm: false,
    weight: null,
    ds: null,
    createdAt: 1000 + id,
    createdBy: 'admin',
    lastModifiedAt: 2000 + id,
    lastModifiedBy: 'admin',
    ...over,
  };
}

export const CTX = { now: 1_700_000_000_000, overdueTs: 1_699_999_000_000 };
