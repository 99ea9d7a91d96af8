import type { ActionType } from './model.js';

/**
 * The create wizard's form and the RolloutCreate body it sends (reference §3.7). The wizard checks
 * only what it must to build a body (a step is complete); everything else is the server's to judge,
 * and its 400 message is shown as it is.
 */
export interface GroupForm {
  readonly name: string;
  readonly targetFilterQuery: string;
  readonly targetPercentage: string;
}

export interface RolloutForm {
  readonly name: string;
  readonly description: string;
  readonly distributionSetId: number | null;
  readonly targetFilterQuery: string;
  /** False while the server refuses the query (FiqlInput shows its message). */
  readonly targetFilterValid: boolean;
  readonly groupMode: 'amount' | 'explicit';
  readonly amountGroups: string;
  readonly groups: readonly GroupForm[];
  readonly successThreshold: string;
  readonly successAction: 'NEXTGROUP' | 'PAUSE';
  readonly errorThreshold: string;
  readonly type: ActionType;
  /** datetime-local text, for timeforced. */
  readonly forcetime: string;
  readonly startMode: 'manual' | 'at';
  /** datetime-local text, when startMode is `at`. */
  readonly startAt: string;
  readonly weight: string;
  readonly confirmationRequired: boolean;
}

export const EMPTY_FORM: RolloutForm = {
  name: '', description: '', distributionSetId: null, targetFilterQuery: '', targetFilterValid: true,
  groupMode: 'amount', amountGroups: '3', groups: [],
  successThreshold: '100', successAction: 'NEXTGROUP', errorThreshold: '20',
  type: 'forced', forcetime: '', startMode: 'manual', startAt: '', weight: '', confirmationRequired: false,
};

/** A new explicit group: the percentage of what the groups before it left. */
export function newGroup(index: number): GroupForm {
  return { name: `group-${index + 1}`, targetFilterQuery: '', targetPercentage: '100' };
}

export const WIZARD_STEPS = ['Basics', 'Groups', 'Conditions', 'Deployment'] as const;
export type WizardStep = (typeof WIZARD_STEPS)[number];

/** What is missing before leaving a step, or null when it is complete. */
export function missingIn(step: WizardStep, f: RolloutForm): string | null {
  switch (step) {
    case 'Basics':
      if (f.name.trim() === '') return 'Give the rollout a name.';
      if (f.distributionSetId === null) return 'Choose the distribution set to deploy.';
      if (f.targetFilterQuery.trim() === '') return 'Enter the target filter query that selects the targets.';
      if (!f.targetFilterValid) return 'The target filter query is not valid: see the message under it.';
      return null;
    case 'Groups':
      if (f.groupMode === 'amount') return wholeNumber(f.amountGroups) === null ? 'The number of groups must be a whole number of at least 1.' : null;
      if (f.groups.length === 0) return 'Add at least one group.';
      return f.groups.some((g) => g.name.trim() === '') ? 'Every group needs a name.' : null;
    case 'Conditions':
      return f.successThreshold.trim() === '' || f.errorThreshold.trim() === '' ? 'Both thresholds are needed (percent, 0-100).' : null;
    case 'Deployment':
      if (f.type === 'timeforced' && timeOf(f.forcetime) === undefined) return 'A time-forced rollout needs the time it becomes forced.';
      if (f.startMode === 'at' && timeOf(f.startAt) === undefined) return 'Choose the start time, or start it manually.';
      return null;
  }
}

function wholeNumber(text: string): number | null {
  const n = Number(text);
  return text.trim() !== '' && Number.isInteger(n) && n >= 1 ? n : null;
}

/** ms since the epoch of a datetime-local text (local time), undefined when empty or invalid. */
export function timeOf(text: string): number | undefined {
  if (text.trim() === '') return undefined;
  const ms = new Date(text).getTime();
  return Number.isFinite(ms) ? ms : undefined;
}

/** A number field as sent: the number when it reads as one, else the text (the server names the error). */
const numberOr = (text: string): number | string => (text.trim() !== '' && Number.isFinite(Number(text)) ? Number(text) : text);

/** The POST /rest/v1/rollouts body. */
export function createBody(f: RolloutForm): Record<string, unknown> {
  const body: Record<string, unknown> = {
    name: f.name.trim(),
    targetFilterQuery: f.targetFilterQuery.trim(),
    distributionSetId: f.distributionSetId,
    type: f.type,
    successCondition: { condition: 'THRESHOLD', expression: f.successThreshold.trim() },
    successAction: { action: f.successAction, expression: '' },
    errorCondition: { condition: 'THRESHOLD', expression: f.errorThreshold.trim() },
    errorAction: { action: 'PAUSE', expression: '' },
    confirmationRequired: f.confirmationRequired,
  };
  if (f.description.trim() !== '') body['description'] = f.description.trim();
  if (f.groupMode === 'amount') body['amountGroups'] = numberOr(f.amountGroups);
  else {
    body['groups'] = f.groups.map((g) => ({
      name: g.name.trim(),
      targetPercentage: numberOr(g.targetPercentage),
      ...(g.targetFilterQuery.trim() === '' ? {} : { targetFilterQuery: g.targetFilterQuery.trim() }),
    }));
  }
  if (f.type === 'timeforced') body['forcetime'] = timeOf(f.forcetime);
  if (f.startMode === 'at') body['startAt'] = timeOf(f.startAt);
  if (f.weight.trim() !== '') body['weight'] = numberOr(f.weight);
  return body;
}
