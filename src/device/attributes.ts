/**
 * A device's attribute report (DDI configData, DMF UPDATE_ATTRIBUTES): merge, replace or remove,
 * which also clears the target's "request attributes" flag. Attributes are a plain field of the
 * target record, edited through the actor runtime.
 * Decisions: keys and values are 1-128 / 0-128 characters without control characters (hawkBit's
 * column sizes; its character whitelist is not in the reference); a change that would leave more
 * than `maxAttributeEntriesPerTarget` attributes is refused whole with 403 (spec 7).
 * @see reference/hawkbit-api.md §1.1 row 7, §2 (DdiConfigData), §9 (UPDATE_ATTRIBUTES)
 */
import { edited } from '../actors/outcomes.js';
import type { ActorEditor } from '../actors/roles.js';
import { AppError } from '../domain/errors.js';
import type { Quotas } from '../domain/quotas.js';
import { TARGET } from '../domain/target.js';

const MAX_LENGTH = 128;
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f]/;

export type AttributeMode = 'merge' | 'replace' | 'remove';

function invalid(message: string): AppError {
  return new AppError('INVALID_TARGET_ATTRIBUTES', message);
}

function checkEntry(key: string, value: string | null): void {
  if (key.length === 0 || key.length > MAX_LENGTH) throw invalid(`body.data: attribute key must be 1-${MAX_LENGTH} characters long, got ${key.length}`);
  if (CONTROL.test(key)) throw invalid(`body.data: attribute key ${JSON.stringify(key.slice(0, 40))} contains a control character`);
  if (value === null) return;
  if (value.length > MAX_LENGTH) throw invalid(`body.data.${key.slice(0, 40)}: attribute value must be at most ${MAX_LENGTH} characters long, got ${value.length}`);
  if (CONTROL.test(value)) throw invalid(`body.data.${key.slice(0, 40)}: attribute value contains a control character`);
}

export function applyAttributes(
  current: Readonly<Record<string, string>>, mode: AttributeMode, data: Readonly<Record<string, string | null>>,
): Record<string, string> {
  const next: Record<string, string> = mode === 'replace' ? {} : { ...current };
  for (const [key, value] of Object.entries(data)) {
    if (mode === 'remove' || value === null) delete next[key];
    else next[key] = value;
  }
  return next;
}

/** What a device's attribute report reads and writes through. */
export interface AttributeDeps {
  readonly runtime: ActorEditor;
  readonly quotas: Pick<Quotas, 'maxAttributeEntriesPerTarget'>;
}

/**
 * Applies a device's attribute report (DDI configData, DMF UPDATE_ATTRIBUTES) through the target's
 * actor and clears its "request attributes" flag: checks every entry, refuses growth beyond the quota.
 */
export async function updateAttributes(
  deps: AttributeDeps, tenant: string, targetId: number, controllerId: string, mode: AttributeMode,
  data: Readonly<Record<string, string | null>>,
): Promise<void> {
  for (const [key, value] of Object.entries(data)) checkEntry(key, value);
  const max = deps.quotas.maxAttributeEntriesPerTarget;
  const result = await deps.runtime.update(tenant, TARGET, targetId, (current) => {
    const attributes = applyAttributes(current.attributes, mode, data);
    const size = Object.keys(attributes).length;
    // only growth is refused: a device may still shrink a map that is over a lowered quota
    if (size > max && size > Object.keys(current.attributes).length) {
      throw new AppError('QUOTA_EXCEEDED', `Quota exceeded: target '${controllerId}' would have ${size} attributes; at most ${max} are allowed.`);
    }
    return { ...current, attributes, requestAttributes: false };
  });
  edited(result, 'Target', controllerId);
}
