import type { Services } from '../app/services.js';
import { ACTION, type ActionRecord } from '../domain/action.js';
import { AppError, notFound } from '../domain/errors.js';
import { TARGET, type AutoConfirm, type TargetRecord } from '../domain/target.js';
import type { Stored } from '../store/port.js';

/**
 * Auto-confirmation of a target (reference §1.1 #15, §3.1 autoConfirm, §4.9; spec §3 rules 2-3).
 * `autoConfirm` is a plain field of the target record, changed with compare-and-set; the waiting
 * actions are then confirmed through their actors.
 */

/** hawkBit's remark when a device activates auto-confirmation without one (DdiRootController FALLBACK_REMARK). */
export const DDI_FALLBACK_REMARK = 'Initiated using the Device Direct Integration API without providing a remark.';

export interface AutoConfirmOptions {
  readonly initiator: string | null;
  readonly remark: string | null;
  /**
   * Stored when `remark` is null. Defaults to the DDI fallback text; the Management API passes null,
   * because hawkBit stores no remark there.
   */
  readonly fallbackRemark?: string | null;
}

const MAX_ATTEMPTS = 8;

/**
 * Activates auto-confirmation: 409 AUTO_CONFIRM_ALREADY_ACTIVE when it is active, 404 when the target
 * does not exist. Every action of the target waiting for confirmation is confirmed, naming the initiator.
 */
export async function activateAutoConfirm(
  services: Services, tenant: string, targetId: number, opts: AutoConfirmOptions, now: number,
): Promise<void> {
  const remark = opts.remark ?? (opts.fallbackRemark === undefined ? DDI_FALLBACK_REMARK : opts.fallbackRemark);
  const state: AutoConfirm = { initiator: opts.initiator, remark, activatedAt: now };
  await updateAutoConfirm(services, tenant, targetId, (target) => {
    if (target.autoConfirm !== null) {
      throw new AppError('AUTO_CONFIRM_ALREADY_ACTIVE', `Auto confirmation is already active for target '${target.controllerId}'.`);
    }
    return state;
  }, now);
  // after the commit: an assignment racing with us either saw autoConfirm (and started running) or
  // committed its waiting action first, which the lookup below then finds
  for (const action of await waitingActions(services, tenant, targetId)) {
    await services.runtime.send(tenant, ACTION, action.id, { type: 'autoconfirm.activated', at: now, initiator: state.initiator, remark: state.remark });
  }
}

/** Deactivates auto-confirmation (no error when it is not active). Running actions stay as they are. */
export async function deactivateAutoConfirm(services: Services, tenant: string, targetId: number): Promise<void> {
  await updateAutoConfirm(services, tenant, targetId, () => null, services.now());
}

async function updateAutoConfirm(
  services: Services, tenant: string, targetId: number, decide: (t: TargetRecord) => AutoConfirm | null, now: number,
): Promise<void> {
  const store = services.ctx.store;
  for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
    const current = await store.get<TargetRecord>(tenant, TARGET, targetId);
    if (current === undefined) throw notFound('Target', targetId);
    const autoConfirm = decide(current.value);
    if (autoConfirm === null && current.value.autoConfirm === null) return;
    const after: TargetRecord = { ...current.value, autoConfirm, lastModifiedAt: now };
    const result = await store.commit(tenant, { writes: [{ kind: TARGET, id: targetId, expect: current.version, before: current.value, after }] });
    if (result.ok) return;
  }
  throw new AppError('CONCURRENT_MODIFICATION', `target ${targetId} is being modified concurrently; retry`);
}

async function waitingActions(services: Services, tenant: string, targetId: number): Promise<ActionRecord[]> {
  const store = services.ctx.store;
  const page = await store.members(tenant, ACTION, 'activeByTarget', String(targetId), { offset: 0, limit: 10_000 });
  const found = await store.getMany<ActionRecord>(tenant, ACTION, page.ids);
  return found
    .filter((a): a is Stored<ActionRecord> => a !== undefined && a.value.status === 'wait_for_confirmation')
    .map((a) => a.value);
}
