/**
 * `PUT .../configData`: the device reports its attributes (merge, replace or remove); the report is
 * applied by src/device/attributes.ts, as DMF's UPDATE_ATTRIBUTES is.
 * @see reference/hawkbit-api.md §1.1 row 7, §2 (DdiConfigData)
 */
import type { DdiDeps } from './deps.js';
import { AppError } from '../domain/errors.js';
import { updateAttributes } from '../device/attributes.js';
import { checkShownAttributes } from '../device/install-verification.js';
import type { Handler } from '../http/types.js';
import { readJson } from '../http/json.js';
import { configDataBody } from './bodies.js';
import { device, requireTarget } from './device.js';

export function configDataHandler(services: DdiDeps): Handler {
  return async (req) => {
    const d = device(req);
    const target = requireTarget(d);
    const body = readJson(req, configDataBody);
    const entries = Object.entries(body.data);
    if (entries.length === 0) throw new AppError('BODY_NOT_READABLE', 'body.data: must not be empty');
    const data: Record<string, string | null> = Object.create(null) as Record<string, string | null>;
    for (const [key, raw] of entries) data[key] = raw === null ? null : String(raw);
    const mode = body.mode ?? 'merge';
    await updateAttributes(services, d.tenant, target.id, d.controllerId, mode, data);
    // verifyInstall: the report the poll after a success asks for may name the version the device runs
    if (target.verifyAction != null && mode !== 'remove') await checkShownAttributes(services, d.tenant, target, data, services.now());
    return { status: 200 };
  };
}
