/**
 * verifyInstall (issue 25): a device's report that shows what it runs, applied to the action it
 * closed with success and whose install waits for confirmation (the target's `verifyAction`). The
 * rules are install-check.ts's; this reads the action and what of its set the report needs, sends the
 * verdict to the action and waits for its effects (the target told, the rollout counts moved). A
 * report from a target with nothing to confirm costs nothing; one that names no version reads only
 * the action.
 *
 * The reads go through the store's cached view (coherent: this process's writes at once, other
 * processes' when Redis's invalidation arrives), as the poll's and deploymentBase's do: the action
 * is stepped as read and its actor decides on its latest record (a stale one costs the runtime a
 * read, never a wrong verdict), and its set is the one it was created with.
 */
import { loadRecords } from '../store/reads.js';
import { ACTION, type ActionRecord } from '../domain/action.js';
import { shownVersion, verdictOfAttributes, verdictOfRunningSet, type InstallVerdict, type SetVersions } from '../domain/install-check.js';
import { DS, SM, type DistributionSetRecord, type SoftwareModuleRecord } from '../domain/repository.js';
import { TARGET, type TargetRecord } from '../domain/target.js';
import type { Reads, Store, Stored, Tenant } from '../store/port.js';
import type { ActionSendDeps } from './active-actions.js';
import { sendToAction } from './reports.js';

export interface InstallCheckDeps extends ActionSendDeps {
  readonly store: Pick<Store, 'get' | 'cached'>;
}

/** What a report shows of the verifying action, read through `reads` as far as it needs (undefined: nothing decided). */
type Verdict = (reads: Reads, tenant: Tenant, action: ActionRecord) => Promise<InstallVerdict | undefined>;

function setOf(reads: Reads, tenant: Tenant, ds: number): Promise<Stored<DistributionSetRecord> | undefined> {
  return reads.get<DistributionSetRecord>(tenant, DS, ds);
}

/** The set of a verifying action as a device can name it: its name, its version and its modules' versions. */
async function versionsOf(reads: Reads, tenant: Tenant, ds: number): Promise<SetVersions | undefined> {
  const set = (await setOf(reads, tenant, ds))?.value;
  if (set === undefined) return undefined;
  const modules = await loadRecords<SoftwareModuleRecord>(reads, tenant, SM, set.modules);
  return { name: set.name, version: set.version, moduleVersions: modules.map((m) => m.value.version) };
}

/** The target's verifying action, or undefined when it is gone or decided already. */
async function verifyingAction(store: InstallCheckDeps['store'], tenant: Tenant, id: number): Promise<Stored<ActionRecord> | undefined> {
  const cached = await store.cached.get<ActionRecord>(tenant, ACTION, id);
  if (cached?.value.verifying === true) return cached;
  // read from the store itself before the target stops waiting: a view behind it could show the action before its success
  const read = await store.get<ActionRecord>(tenant, ACTION, id);
  return read?.value.verifying === true ? read : undefined;
}

async function decide(deps: InstallCheckDeps, tenant: Tenant, target: TargetRecord, verdict: Verdict, now: number): Promise<void> {
  const id = target.verifyAction;
  if (id == null) return;
  const action = await verifyingAction(deps.store, tenant, id);
  if (action === undefined) {
    // gone, or decided already: the target stops waiting for it
    await deps.runtime.send(tenant, TARGET, target.id, { type: 'action.verified', action: id, at: now });
    return;
  }
  const v = await verdict(deps.store.cached, tenant, action.value);
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
  return decide(deps, tenant, target, async (reads, t, a) => {
    if (shownVersion(a, data) === undefined) return undefined; // a report that names no version reads no set
    const set = await versionsOf(reads, t, a.ds);
    return set === undefined ? undefined : verdictOfAttributes(a, set, data);
  }, now);
}

/** The running version a device reports (DDI `PUT installedBase`): the action's set, or another one (its name and version: no module read). */
export function checkShownSet(
  deps: InstallCheckDeps, tenant: Tenant, target: TargetRecord, reported: { readonly name: string; readonly version: string }, now: number,
): Promise<void> {
  return decide(deps, tenant, target, async (reads, t, a) => {
    const set = (await setOf(reads, t, a.ds))?.value;
    return set === undefined ? undefined : verdictOfRunningSet(set, reported);
  }, now);
}
