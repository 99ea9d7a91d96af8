/**
 * verifyInstall (issue 25): a device's report that shows what it runs, applied to the action it
 * closed with success and whose install waits for confirmation (the target's `verifyAction`). The
 * rules are install-check.ts's; this loads the action and its set, sends the verdict to the action
 * and waits for its effects (the target told, the rollout counts moved). A report from a target with
 * nothing to confirm costs nothing.
 */
import { loadRecords } from '../store/reads.js';
import { ACTION, type ActionRecord } from '../domain/action.js';
import { verdictOfAttributes, verdictOfRunningSet, type InstallVerdict, type SetVersions } from '../domain/install-check.js';
import { DS, SM, type DistributionSetRecord, type SoftwareModuleRecord } from '../domain/repository.js';
import { TARGET, type TargetRecord } from '../domain/target.js';
import type { Store, Stored, Tenant } from '../store/port.js';
import type { ActionSendDeps } from './active-actions.js';
import { sendToAction } from './reports.js';

export interface InstallCheckDeps extends ActionSendDeps {
  readonly store: Pick<Store, 'get' | 'getMany'>;
}

type Verdict = (action: ActionRecord, set: SetVersions) => InstallVerdict | undefined;

/** The set of a verifying action as a device can name it: its name, its version and its modules' versions. */
async function versionsOf(store: InstallCheckDeps['store'], tenant: Tenant, ds: number): Promise<SetVersions | undefined> {
  const set = (await store.get<DistributionSetRecord>(tenant, DS, ds))?.value;
  if (set === undefined) return undefined;
  const modules = await loadRecords<SoftwareModuleRecord>(store, tenant, SM, set.modules);
  return { name: set.name, version: set.version, moduleVersions: modules.map((m) => m.value.version) };
}

async function decide(deps: InstallCheckDeps, tenant: Tenant, target: TargetRecord, verdict: Verdict, now: number): Promise<void> {
  const id = target.verifyAction;
  if (id == null) return;
  const action = await deps.store.get<ActionRecord>(tenant, ACTION, id);
  if (action === undefined || action.value.verifying !== true) {
    // gone, or decided already: the target stops waiting for it
    await deps.runtime.send(tenant, TARGET, target.id, { type: 'action.verified', action: id, at: now });
    return;
  }
  const set = await versionsOf(deps.store, tenant, action.value.ds);
  const v = set === undefined ? undefined : verdict(action.value, set);
  if (v !== undefined) await send(deps, tenant, action, v, now);
}

function send(deps: InstallCheckDeps, tenant: Tenant, action: Stored<ActionRecord>, v: InstallVerdict, now: number) {
  return sendToAction(deps, tenant, action, v.confirmed
    ? { type: 'device.verified', at: now, evidence: v.evidence }
    : { type: 'device.fellBack', evidence: v.evidence, at: now, timestamp: now, code: null, details: [] });
}

/** A device's attribute report (merge or replace): with `verifyInstall.attribute`, that attribute names the version it runs. */
export function checkShownAttributes(
  deps: InstallCheckDeps, tenant: Tenant, target: TargetRecord, data: Readonly<Record<string, string | null>>, now: number,
): Promise<void> {
  return decide(deps, tenant, target, (a, set) => verdictOfAttributes(a, set, data), now);
}

/** The running version a device reports (DDI `PUT installedBase`): the action's set, or another one. */
export function checkShownSet(
  deps: InstallCheckDeps, tenant: Tenant, target: TargetRecord, reported: { readonly name: string; readonly version: string }, now: number,
): Promise<void> {
  return decide(deps, tenant, target, (_, set) => verdictOfRunningSet(set, reported), now);
}
