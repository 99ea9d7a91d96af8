/**
 * The JSON replies of targets, target types and target filters, as target-json.ts, type-routes.ts
 * and filter-routes.ts render them (for the OpenAPI document; a test checks real replies against them).
 * @see reference §3.1, §3.3, §3.4
 */
import { z } from 'zod';
import { auditShape, linksSchema } from '../../apidoc/shapes.js';
import { ACTION_TYPES } from '../../domain/action.js';
import { UPDATE_STATUSES } from '../../domain/target.js';

/** MgmtTarget (null fields left out). */
export const targetResponse = z.looseObject({
  ...auditShape,
  name: z.string(),
  description: z.string().optional(),
  controllerId: z.string(),
  updateStatus: z.enum(UPDATE_STATUSES),
  lastControllerRequestAt: z.number().int().optional(),
  installedAt: z.number().int().optional(),
  ipAddress: z.string().optional(),
  address: z.string().optional(),
  pollStatus: z.looseObject({ lastRequestAt: z.number().int(), nextExpectedRequestAt: z.number().int(), overdue: z.boolean() }).optional(),
  securityToken: z.string().optional().describe('only for callers holding READ_TARGET_SECURITY_TOKEN'),
  requestAttributes: z.boolean(),
  targetType: z.number().int().optional(),
  targetTypeName: z.string().optional(),
  autoConfirmActive: z.boolean().optional().describe('while the confirmation flow is on'),
  group: z.string().optional(),
  _links: linksSchema,
}).meta({ id: 'MgmtTarget' });

/** MgmtTargetType. */
export const targetTypeResponse = z.looseObject({
  id: z.number().int(),
  key: z.string().optional(),
  name: z.string(),
  description: z.string().optional(),
  colour: z.string().optional(),
  deleted: z.boolean(),
  ...auditShape,
  _links: linksSchema,
}).meta({ id: 'MgmtTargetType' });

/** MgmtTargetFilterQuery: every field present, nulls included. */
export const targetFilterResponse = z.looseObject({
  id: z.number().int(),
  name: z.string(),
  query: z.string(),
  autoAssignDistributionSet: z.number().int().nullable(),
  autoAssignActionType: z.enum(ACTION_TYPES).nullable(),
  autoAssignWeight: z.number().int().nullable(),
  confirmationRequired: z.boolean().nullable(),
  ...auditShape,
  _links: linksSchema,
}).meta({ id: 'MgmtTargetFilterQuery' });
