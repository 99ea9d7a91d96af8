import { z } from 'zod';
import { ACTION_TYPES, type ActionType, type MaintenanceWindow } from '../../domain/action.js';
import { bool, id, int, many } from '../kit/body.js';

/**
 * Assignment request bodies (reference §3.16): `POST /targets/{id}/assignedDS` takes `{id: dsId, ...}`
 * items, `POST /distributionsets/{id}/assignedTargets` takes `{id: controllerId, ...}` items; both a
 * single object or an array. Unknown fields are ignored.
 */
const window = z.object({
  schedule: z.string().nullish(),
  duration: z.string().nullish(),
  timezone: z.string().nullish(),
}).nullish();

const options = {
  type: z.enum(ACTION_TYPES).nullish(),
  forcetime: int(0).nullish(),
  weight: int(0, 1000).nullish(),
  confirmationRequired: bool().nullish(),
  maintenanceWindow: window,
};

export const dsAssignmentsBody = many(z.object({ id: id(), ...options }));
export const targetAssignmentsBody = many(z.object({ id: z.string().min(1).max(256), ...options }));

type Options = { readonly [K in keyof typeof options]?: z.output<(typeof options)[K]> };

/** One (target, distribution set) pair of a request, with its options as sent. */
export interface AssignItem {
  readonly controllerId: string;
  readonly ds: number;
  readonly actionType: ActionType;
  readonly forceTime: number;
  readonly weight: number | null;
  readonly confirmationRequired: boolean | null;
  readonly maintenanceWindow: Partial<MaintenanceWindow> | null;
}

export function toItem(controllerId: string, ds: number, o: Options): AssignItem {
  return {
    controllerId,
    ds,
    actionType: o.type ?? 'forced',
    forceTime: o.forcetime ?? 0,
    weight: o.weight ?? null,
    confirmationRequired: o.confirmationRequired ?? null,
    maintenanceWindow: o.maintenanceWindow ? {
      ...(o.maintenanceWindow.schedule == null ? {} : { schedule: o.maintenanceWindow.schedule }),
      ...(o.maintenanceWindow.duration == null ? {} : { duration: o.maintenanceWindow.duration }),
      ...(o.maintenanceWindow.timezone == null ? {} : { timezone: o.maintenanceWindow.timezone }),
    } : null,
  };
}
