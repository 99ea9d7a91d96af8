import { randomInt } from 'node:crypto';
import { z } from 'zod';
import { decimal, many, str, text } from '../kit/body.js';

/**
 * The release controls of a rollout in request bodies and replies (issue 25; src/domain/rollout-release.ts
 * checks the values: a rate of 0 is 400 `rest.body.notReadable` naming the field, as for the other safety fields).
 * Kept apart from hawkBit's fields (rollout-body.ts): a rollout without them is hawkBit's.
 */
const number = decimal(-Number.MAX_VALUE, Number.MAX_VALUE).nullish();

const ramp = z.object({
  maxPerMinute: number.describe('actions released per minute at an even pace, 1-100000'),
  exponential: z.object({
    baseRatePerMinute: number.describe('the first rate, 1-100000 a minute'),
    incrementFactor: number.describe('the rate is multiplied by this (1.1-5) each time increaseAfter is reached again'),
    increaseAfter: z.object({
      notified: number.describe('actions started'),
      succeeded: number.describe('actions finished with success'),
    }).nullish(),
  }).nullish(),
}).describe('how fast a started group\'s actions are released: one of maxPerMinute or exponential');

/** Spread into the create and update bodies. */
export const releaseParts = {
  maxInFlight: number.describe('the most actions of the rollout running at once'),
  ramp: ramp.nullish(),
  soak: z.object({ minutes: number.describe('1-43200') }).nullish()
    .describe('after a group meets its success condition, the next starts only this much later, and only if the group still meets it then'),
  groupOrder: z.object({
    order: str().nullish().describe('created (default, hawkBit\'s), random or spread'),
    seed: number.describe('random and spread: the same seed gives the same groups (absent: one is chosen and shown)'),
    attribute: text(128).describe('spread: the target attribute whose values are spread over the groups'),
  }).nullish().describe('how the targets are divided over the groups: on create, or by PUT before the start (groups without a filter of their own)'),
  window: many(z.object({
    cron: text(128).describe('5 fields: minute hour day-of-month month day-of-week; each match opens a window'),
    durationMinutes: number.describe('1-10080'),
    timezone: text(64).describe('the IANA time zone the cron is read in (default UTC)'),
  })).nullish().describe('actions are released only inside one of these windows'),
  endAt: number.describe('a time (ms) in the future: the rollout stops then'),
  endBehaviour: str().nullish().describe('at endAt: stop (running actions finish; the default) or cancel (they are canceled)'),
};

type Seedable = {
  readonly groupOrder?: { readonly order?: string | null | undefined; readonly seed?: number | null | undefined } | null | undefined;
};
/** A random or spread group order without a seed gets one, kept with the rollout so its groups can be made again. */
export function withSeed<B extends Seedable>(body: B): B {
  const g = body.groupOrder;
  if (g == null || g.seed != null || (g.order !== 'random' && g.order !== 'spread')) return body;
  return { ...body, groupOrder: { ...g, seed: randomInt(2 ** 31) } };
}

const rampReply = z.looseObject({
  maxPerMinute: z.number().int().optional(),
  exponential: z.looseObject({
    baseRatePerMinute: z.number().int(), incrementFactor: z.number(),
    increaseAfter: z.looseObject({ notified: z.number().int().optional(), succeeded: z.number().int().optional() }),
  }).optional(),
});

/** Spread into the rollout reply: present only when the rollout has them. */
export const releaseReplyShape = {
  maxInFlight: z.number().int().optional(),
  ramp: rampReply.optional(),
  soak: z.looseObject({ minutes: z.number().int() }).optional(),
  groupOrder: z.looseObject({ order: z.enum(['created', 'random', 'spread']), seed: z.number().int().optional(), attribute: z.string().optional() }).optional(),
  window: z.array(z.looseObject({ cron: z.string(), durationMinutes: z.number().int(), timezone: z.string() })).optional(),
  endAt: z.number().int().optional(),
  endBehaviour: z.enum(['stop', 'cancel']).optional(),
};
