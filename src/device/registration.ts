/**
 * Registration of a device by its controller id, for DDI and DMF alike (plug and play, reference §4.3),
 * and finding its target by controller id, through the store or from the poll cache alone.
 * @see reference/hawkbit-api.md §4.3, §9 (THING_CREATED)
 */
import { randomBytes } from 'node:crypto';
import type { ActorEditor } from '../actors/roles.js';
import { created } from '../domain/audit.js';
import { concurrent } from '../domain/errors.js';
import { TARGET, type TargetRecord } from '../domain/target.js';
import { MISS, type CachedReads, type Miss, type Reads, type Store } from '../store/port.js';

/** hawkBit's auditor name for everything a device creates (SpringSecurityAuditorAware). */
const CONTROLLER_USER = 'CONTROLLER_PLUG_AND_PLAY';

/** The target from the cache alone, or MISS when any part of it is not cached. */
export function peekTarget(reads: CachedReads, tenant: string, controllerId: string): TargetRecord | undefined | Miss {
  const id = reads.peekLookup(tenant, TARGET, 'controllerId', controllerId.toLowerCase());
  if (id === MISS || id === undefined) return id;
  const stored = reads.peekGet<TargetRecord>(tenant, TARGET, id);
  return stored === MISS ? MISS : stored?.value;
}

export async function findTarget(reads: Reads, tenant: string, controllerId: string): Promise<TargetRecord | undefined> {
  const id = await reads.lookup(tenant, TARGET, 'controllerId', controllerId.toLowerCase());
  return id === undefined ? undefined : (await reads.get<TargetRecord>(tenant, TARGET, id))?.value;
}

/** What registration reads and writes through. */
export interface RegisterDeps {
  readonly store: Reads & Pick<Store, 'nextIds'>;
  readonly runtime: ActorEditor;
}

/** What a device tells about itself when it registers (DMF THING_CREATED carries a name and type too). */
export interface Registration {
  readonly address: string | null;
  readonly name?: string | null;
  readonly targetType?: number | null;
}

/** Registration by controller id, for DDI and DMF alike; `existing` is the target when it is known. */
export async function registerController(
  deps: RegisterDeps, tenant: string, controllerId: string, existing: TargetRecord | undefined, reg: Registration, now: number,
): Promise<TargetRecord> {
  if (existing !== undefined) {
    if (existing.updateStatus !== 'unknown') return existing;
    const r = await deps.runtime.send(tenant, TARGET, existing.id, { type: 'device.polled', at: now });
    return r.kind === 'committed' || r.kind === 'ignored' ? r.record : existing;
  }
  const id = await deps.store.nextIds(tenant, TARGET, 1);
  const record: TargetRecord = {
    id, controllerId, name: reg.name ?? controllerId, description: `Plug and Play target: ${controllerId}`,
    securityToken: randomToken(), address: reg.address, updateStatus: 'registered', requestAttributes: true, targetType: reg.targetType ?? null,
    assignedDs: null, installedDs: null, installedAt: null, installedAction: null, tags: [], attributes: {}, metadata: {},
    autoConfirm: null, group: null, ...created(CONTROLLER_USER, now),
  };
  const result = await deps.runtime.create(tenant, TARGET, record);
  if (result.ok) return record;
  // another request of the same device registered it first
  const found = await findTarget(deps.store, tenant, controllerId);
  if (found === undefined) throw concurrent('target', `'${controllerId}'`);
  return found;
}

const ALPHANUMERIC = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** 32 alphanumeric characters (spec 2.3), without modulo bias. */
function randomToken(): string {
  let out = '';
  while (out.length < 32) {
    for (const b of randomBytes(48)) {
      if (b < 248 && out.length < 32) out += ALPHANUMERIC[b % 62];
    }
  }
  return out;
}
