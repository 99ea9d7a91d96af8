import { z } from 'zod';
import { ACTION_TYPES, type ActionType } from '../../domain/action.js';
import { badRequest } from '../../domain/errors.js';
import { DEFAULT_CONDITIONS, type Conditions } from '../../domain/rollout.js';
import { LIMITS, bool, decimal, description, id, int, name, str, text } from '../kit/body.js';
import { safetyParts } from './rollout-safety-body.js';
import { releaseParts } from './release-body.js';

/**
 * Rollout request bodies (reference §3.7), made of the kit's blocks (so scalars are coerced as for
 * every Management body). Condition and action names are taken in either spelling (THRESHOLD or
 * threshold, NEXTGROUP or nextgroup, PAUSE or pause); thresholds are percentages 0..100.
 * @see reference §3.7 (RolloutCreate, conditions and their defaults)
 */
const expression = str(z.string().max(LIMITS.description)).nullish();
const conditionBody = z.object({ condition: str().nullish(), expression });
const actionBody = z.object({ action: str().nullish(), expression });

const conditionParts = {
  successCondition: conditionBody.nullish(),
  successAction: actionBody.nullish(),
  errorCondition: conditionBody.nullish(),
  errorAction: actionBody.nullish(),
};

const groupBody = z.object({
  name,
  description,
  targetFilterQuery: text(4096),
  // checked against 1..100 when the groups are built (hawkBit's ValidationException: 400 constraintViolation)
  targetPercentage: decimal(-Number.MAX_VALUE, Number.MAX_VALUE).nullish(),
  confirmationRequired: bool().nullish(),
  ...conditionParts,
});

export const createRolloutBody = z.object({
  name,
  description,
  targetFilterQuery: text(4096),
  distributionSetId: id().nullish(),
  amountGroups: int(0, 1_000_000).nullish(),
  groups: z.array(groupBody).nullish(),
  type: str().nullish(),
  forcetime: int(0).nullish(),
  startAt: int(0).nullish(),
  // 0..1000 checked on create (hawkBit's bean validation: 400 constraintViolation)
  weight: int(-Number.MAX_SAFE_INTEGER).nullish(),
  confirmationRequired: bool().nullish(),
  dynamic: bool().nullish(),
  // MgmtDynamicRolloutGroupTemplate; targetCount checked on create (at least 1)
  dynamicGroupTemplate: z.object({ nameSuffix: text(LIMITS.name), targetCount: int(-Number.MAX_SAFE_INTEGER).nullish() }).nullish(),
  ...conditionParts,
  ...safetyParts,
  ...releaseParts,
});
export type CreateRolloutBody = z.output<typeof createRolloutBody>;

/** Name and description; the safety and release controls only while the rollout has not started. */
export const updateRolloutBody = z.object({ name: name.nullish(), description, ...safetyParts, ...releaseParts });

type Parts = Pick<CreateRolloutBody, 'successCondition' | 'successAction' | 'errorCondition' | 'errorAction'>;

/** The action type of `type` (default forced); anything else is a 400 naming it. */
export function actionTypeOf(type: string | null | undefined): ActionType {
  if (type == null) return 'forced';
  const found = ACTION_TYPES.find((t) => t === type.toLowerCase());
  if (found === undefined) throw badRequest(`body.type: must be one of ${ACTION_TYPES.join(', ')}, got '${type}'`);
  return found;
}

/**
 * The conditions given, over `fallback` (the rollout's, or hawkBit's defaults). An object sent without
 * its fields gets THRESHOLD / "100" and NEXTGROUP / PAUSE, as hawkBit's builder does.
 */
export function conditionsOf(parts: Parts, where: string, fallback: Conditions = DEFAULT_CONDITIONS): Conditions {
  const threshold = (c: Parts['successCondition'], field: string, dflt: Conditions['successCondition']) => {
    if (c == null) return dflt;
    if (c.condition != null && c.condition.toUpperCase() !== 'THRESHOLD') {
      throw badRequest(`${where}.${field}.condition: must be THRESHOLD, got '${c.condition}'`);
    }
    const exp = c.expression ?? '100';
    const n = Number(exp);
    if (exp.trim() === '' || !Number.isFinite(n) || n < 0 || n > 100) {
      throw badRequest(`${where}.${field}.expression: must be a percentage 0..100, got '${exp}'`);
    }
    return { condition: 'THRESHOLD' as const, expression: exp.trim() };
  };
  const success = parts.successAction;
  let successAction = fallback.successAction;
  if (success != null) {
    const action = (success.action ?? 'NEXTGROUP').toUpperCase();
    if (action !== 'NEXTGROUP' && action !== 'PAUSE') throw badRequest(`${where}.successAction.action: must be NEXTGROUP or PAUSE, got '${success.action}'`);
    successAction = { action, expression: success.expression ?? '' };
  }
  const error = parts.errorAction;
  let errorAction = fallback.errorAction;
  if (error != null) {
    if (error.action != null && error.action.toUpperCase() !== 'PAUSE') throw badRequest(`${where}.errorAction.action: must be PAUSE, got '${error.action}'`);
    errorAction = { action: 'PAUSE', expression: error.expression ?? '' };
  }
  return {
    successCondition: threshold(parts.successCondition, 'successCondition', fallback.successCondition),
    successAction,
    errorCondition: threshold(parts.errorCondition, 'errorCondition', fallback.errorCondition),
    errorAction,
  };
}
