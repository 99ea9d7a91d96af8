/**
 * The JSON replies of actions and their status entries, as views.ts renders them (for the OpenAPI
 * document; a test checks real replies against them). @see reference §3.6
 */
import { z } from 'zod';
import { auditShape, linksSchema } from '../../apidoc/shapes.js';
import { ACTION_STATUSES, ACTION_TYPES } from '../../domain/action.js';

/** MgmtAction (null fields left out). */
export const actionResponse = z.looseObject({
  ...auditShape,
  id: z.number().int(),
  type: z.enum(['update', 'cancel']),
  status: z.enum(['pending', 'finished']),
  detailStatus: z.enum(ACTION_STATUSES),
  active: z.boolean(),
  forceType: z.enum(ACTION_TYPES),
  forceTime: z.number().int().optional().describe('timeforced actions'),
  weight: z.number().int().optional(),
  maintenanceWindow: z.looseObject({
    schedule: z.string(), duration: z.string(), timezone: z.string(), nextStartAt: z.number().int().optional(),
  }).optional(),
  rollout: z.number().int().optional(),
  rolloutName: z.string().optional(),
  attempt: z.number().int().optional().describe('a retry of a rollout action (rollout retry): its target\'s attempt, from 2'),
  rollback: z.literal(true).optional().describe('a rollback action of an aborted rollout (not counted in the rollout)'),
  lastStatusCode: z.number().int().optional(),
  externalRef: z.string().optional(),
  _links: linksSchema,
}).meta({ id: 'MgmtAction' });

/** MgmtActionStatus. */
export const actionStatusResponse = z.looseObject({
  id: z.number().int(),
  type: z.enum(ACTION_STATUSES),
  messages: z.array(z.string()),
  reportedAt: z.number().int(),
  timestamp: z.number().int(),
  code: z.number().int().optional(),
}).meta({ id: 'MgmtActionStatus' });

/** MgmtTargetAssignmentResponseBody: the answer of both assignment routes. */
export const assignmentResponse = z.looseObject({
  assigned: z.number().int(),
  alreadyAssigned: z.number().int(),
  total: z.number().int(),
  assignedActions: z.array(z.looseObject({ id: z.number().int(), _links: linksSchema })),
}).meta({ id: 'MgmtTargetAssignmentResponseBody' });
