/**
 * The JSON replies of rollouts and rollout groups, as rollout-json.ts renders them (for the OpenAPI
 * document; a test checks real replies against them). @see reference §3.7
 */
import { z } from 'zod';
import { auditShape, linksSchema } from '../../apidoc/shapes.js';
import { ACTION_TYPES } from '../../domain/action.js';
import { GROUP_STATUSES, ROLLOUT_STATUSES } from '../../domain/rollout.js';
import { safetyResponse } from './rollout-safety-body.js';
import { releaseReplyShape } from './release-body.js';

const perStatus = z.looseObject({
  scheduled: z.number().int(), running: z.number().int(), error: z.number().int(),
  finished: z.number().int(), cancelled: z.number().int(), notstarted: z.number().int(),
});

/** MgmtRolloutResponseBody; single-rollout answers add the counts and the operation links. */
export const rolloutResponse = z.looseObject({
  ...auditShape,
  name: z.string(),
  description: z.string().optional(),
  targetFilterQuery: z.string(),
  distributionSetId: z.number().int(),
  status: z.enum(ROLLOUT_STATUSES),
  totalTargets: z.number().int(),
  type: z.enum(ACTION_TYPES),
  forcetime: z.number().int(),
  deleted: z.boolean(),
  dynamic: z.boolean(),
  weight: z.number().int().optional(),
  id: z.number().int(),
  totalTargetsPerStatus: perStatus.optional(),
  totalGroups: z.number().int().optional(),
  startAt: z.number().int().optional(),
  approvalRemark: z.string().optional(),
  approveDecidedBy: z.string().optional(),
  ...safetyResponse,
  ...releaseReplyShape,
  _links: linksSchema,
}).meta({ id: 'MgmtRolloutResponseBody' });

const condition = z.looseObject({ condition: z.string(), expression: z.string().optional() });
const reaction = z.looseObject({ action: z.string(), expression: z.string().optional() });

/** MgmtRolloutGroupResponseBody. */
export const rolloutGroupResponse = z.looseObject({
  ...auditShape,
  name: z.string(),
  description: z.string().optional(),
  id: z.number().int(),
  status: z.enum(GROUP_STATUSES),
  targetFilterQuery: z.string(),
  targetPercentage: z.number(),
  confirmationRequired: z.boolean().optional(),
  dynamic: z.boolean(),
  totalTargets: z.number().int(),
  successCondition: condition,
  successAction: reaction,
  errorCondition: condition,
  errorAction: reaction,
  totalTargetsPerStatus: perStatus.optional(),
  soakUntil: z.number().int().optional(),
  _links: linksSchema,
}).meta({ id: 'MgmtRolloutGroupResponseBody' });
