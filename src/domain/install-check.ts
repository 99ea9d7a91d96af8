/**
 * verifyInstall (issue 25, hawkbit#3185): what counts as a device showing the set of an action it
 * closed with success. A poll says nothing about what the device runs (a device that rebooted back
 * into its old A/B slot polls just the same), so only these do:
 * - the running version it reports (DDI `PUT installedBase` {name, version}): the action's set
 *   confirms, another set is a fallback;
 * - with `verifyInstall.attribute`, its attribute report (DDI configData, DMF UPDATE_ATTRIBUTES and
 *   THING_CREATED's attributeUpdate; the poll after a success asks for it, as hawkBit's does): that
 *   attribute's value equal to the set's version or one of its modules' versions (the versions a
 *   device sees in its deployment's chunks) confirms, another value is a fallback; a report without that attribute decides nothing;
 * - a failure report on the action (DDI feedback, DMF ERROR) is a fallback; DMF's FINISHED confirms.
 * Pure: the caller loads the action and its set.
 */
import type { ActionRecord } from './action.js';
import type { RolloutSafety, VerifyInstall } from './rollout-safety.js';

/** The start of the history line of a confirmed install, and of one counted as failed: recognisable texts. */
export const VERIFIED_PREFIX = 'Install verified: ';
export const NOT_VERIFIED_PREFIX = 'Install not verified: ';
/** The end of a not-verified line. */
export const FELL_BACK_SUFFIX = ' (it fell back to its previous software).';

/** A decision on a verifying action: confirmed or not, and what the device showed (for its history). */
export interface InstallVerdict {
  readonly confirmed: boolean;
  readonly evidence: string;
}

/** The set as a device can name it: its name and version, and its modules' versions. */
export interface SetVersions {
  readonly name: string;
  readonly version: string;
  readonly moduleVersions: readonly string[];
}

/** The attribute naming the running version, of a rollout's verifyInstall (undefined: none configured). */
export function verifyAttributeOf(v: RolloutSafety['verifyInstall']): string | undefined {
  return typeof v === 'object' ? v.attribute : undefined;
}

/** Whether a rollout's actions wait for their install to be confirmed. */
export function verifiesInstall(v: boolean | VerifyInstall | undefined): boolean {
  return v === true || typeof v === 'object';
}

/** The fields an action of a rollout takes from its verifyInstall (none without it). */
export function verifyFields(r: RolloutSafety): Pick<ActionRecord, 'verifyInstall' | 'verifyAttribute'> {
  if (!verifiesInstall(r.verifyInstall)) return {};
  const attribute = verifyAttributeOf(r.verifyInstall);
  return attribute === undefined ? { verifyInstall: true } : { verifyInstall: true, verifyAttribute: attribute };
}

const same = (a: string, b: string): boolean => a.trim().toLowerCase() === b.trim().toLowerCase();

/** The version an attribute report names for a verifying action (its `verifyAttribute`'s value), or undefined: none. */
export function shownVersion(a: Pick<ActionRecord, 'verifyAttribute'>, data: Readonly<Record<string, string | null>>): string | undefined {
  const key = a.verifyAttribute;
  return key === undefined || !Object.hasOwn(data, key) ? undefined : (data[key] ?? undefined);
}

/** The verdict of a device's attribute report on its verifying action, or undefined when it does not name the version. */
export function verdictOfAttributes(
  a: Pick<ActionRecord, 'verifyAttribute'>, set: SetVersions, data: Readonly<Record<string, string | null>>,
): InstallVerdict | undefined {
  const key = a.verifyAttribute;
  const value = shownVersion(a, data);
  if (key === undefined || value === undefined) return undefined;
  const shown = `the target reports ${key} '${value}'`;
  if (same(value, set.version) || set.moduleVersions.some((v) => same(value, v))) {
    return { confirmed: true, evidence: `${shown}, the version of set ${set.name}:${set.version}` };
  }
  return { confirmed: false, evidence: `${shown}, not the version of set ${set.name}:${set.version}` };
}

/** The verdict of the running version a device reports (name and version of a set) on its verifying action. */
export function verdictOfRunningSet(set: Pick<SetVersions, 'name' | 'version'>, reported: { readonly name: string; readonly version: string }): InstallVerdict {
  const shown = `the target reports running ${reported.name}:${reported.version}`;
  return same(reported.name, set.name) && same(reported.version, set.version)
    ? { confirmed: true, evidence: shown }
    : { confirmed: false, evidence: `${shown}, not set ${set.name}:${set.version}` };
}

/** The evidence of a failure reported on the action after its success (DDI feedback, DMF ERROR). */
export const FAILURE_EVIDENCE = 'the target reported failure after its success feedback';
/** The evidence of DMF's FINISHED repeated on a verifying action. */
export const FINISHED_EVIDENCE = 'the target reported FINISHED again after its success report';
