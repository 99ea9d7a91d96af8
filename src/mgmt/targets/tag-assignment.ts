import type { Services } from '../../app/services.js';
import { AppError } from '../../domain/errors.js';
import { TARGET, type TargetRecord } from '../../domain/target.js';
import type { Request } from '../../http/types.js';
import type { Tenant } from '../../store/port.js';
import { updateRecord } from '../kit/entities.js';

/**
 * Assigning a tag to targets and taking it away: a plain-field change of each target record
 * (compare-and-set), skipped for targets already in the wanted state.
 * @see reference §3.2, §10 (0.5 bodies and toggleTagAssignment)
 */

export const NOT_FOUND_POLICIES = ['FAIL', 'ON_WHAT_FOUND_AND_FAIL', 'ON_WHAT_FOUND_AND_SUCCESS'] as const;
type NotFoundPolicy = (typeof NOT_FOUND_POLICIES)[number];
const PARALLEL = 32;

export function notFoundPolicy(req: Request): NotFoundPolicy {
  const raw = req.query.get('onNotFoundPolicy');
  if (raw === null || raw === '') return 'FAIL';
  const found = NOT_FOUND_POLICIES.find((p) => p === raw.toUpperCase());
  if (found === undefined) throw new AppError('BAD_PARAMETER', `onNotFoundPolicy must be one of ${NOT_FOUND_POLICIES.join(', ')}, got '${raw.slice(0, 64)}'`);
  return found;
}

/** The targets with these controller ids (request order, duplicates once) and the ids not found. */
export async function findTargets(services: Services, tenant: Tenant, controllerIds: readonly string[]): Promise<{ found: TargetRecord[]; missing: string[] }> {
  const store = services.ctx.store;
  const unique = [...new Map(controllerIds.map((c) => [c.toLowerCase(), c])).entries()];
  const ids = unique.length === 0 ? [] : await store.lookupMany(tenant, TARGET, 'controllerId', unique.map(([k]) => k));
  const present = ids.filter((x): x is number => x !== undefined);
  const records = await store.getMany<TargetRecord>(tenant, TARGET, present);
  const byId = new Map(records.filter((r) => r !== undefined).map((r) => [r.id, r.value]));
  const found: TargetRecord[] = [];
  const missing: string[] = [];
  unique.forEach(([, cid], i) => {
    const id = ids[i];
    const t = id === undefined ? undefined : byId.get(id);
    if (t === undefined) missing.push(cid);
    else found.push(t);
  });
  return { found, missing };
}

/** 404 naming the missing controller ids. */
export function targetsNotFound(missing: readonly string[]): AppError {
  const shown = missing.slice(0, 10).join(', ') + (missing.length > 10 ? `, and ${missing.length - 10} more` : '');
  return new AppError('NOT_FOUND', `Target with given identifiers {${shown}} does not exist.`);
}

/** Adds (`on`) or removes the tag on each target; returns every target as it is afterwards. */
export async function setTag(services: Services, tenant: Tenant, targets: readonly TargetRecord[], tagId: number, on: boolean, by: string): Promise<TargetRecord[]> {
  const store = services.ctx.store;
  const now = services.now();
  const out: TargetRecord[] = [...targets];
  for (let i = 0; i < targets.length; i += PARALLEL) {
    await Promise.all(targets.slice(i, i + PARALLEL).map(async (t, j) => {
      if (t.tags.includes(tagId) === on) return;
      out[i + j] = await updateRecord<TargetRecord>(store, tenant, TARGET, t.id, 'Target', (cur) => {
        if (cur.tags.includes(tagId) === on) return cur;
        const tags = on ? [...cur.tags, tagId] : cur.tags.filter((x) => x !== tagId);
        return { ...cur, tags, lastModifiedBy: by, lastModifiedAt: now };
      });
    }));
  }
  return out;
}
