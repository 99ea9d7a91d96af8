import { badRequest, type AppError } from './errors.js';
import { insideWindow, windowOf, type ReleaseWindow, type WindowInput } from './rollout-window.js';

/**
 * Release controls of a rollout (issue 25): how fast and how many of a started group's actions are
 * released (started for their devices). All optional: a rollout without them starts a group's
 * actions all at once, as hawkBit does. Pure: the engine (src/scheduler/rollout-release.ts) reads
 * the counts and the clock and asks these functions how many to release now.
 */

/** Releases per minute, at most (the top of `baseRatePerMinute` and of every stepped-up rate). */
export const MAX_RATE_PER_MINUTE = 100_000;
const FACTOR_MIN = 1.1;
const FACTOR_MAX = 5;

export type Ramp =
  /** An even pace: one release every 60 000 / n ms. */
  | { readonly maxPerMinute: number }
  /** AWS IoT Jobs' exponential rollout: the rate grows by `incrementFactor` each time `increaseAfter` is reached again. */
  | {
    readonly exponential: {
      readonly baseRatePerMinute: number;
      readonly incrementFactor: number;
      readonly increaseAfter: { readonly notified: number } | { readonly succeeded: number };
    };
  };

export interface ReleaseControls {
  /** The most actions of the rollout running at once. */
  readonly maxInFlight?: number;
  readonly ramp?: Ramp;
  /** After a group meets its success condition, its successors start only this much later, if it still meets it then. */
  readonly soak?: { readonly minutes: number };
  /** How the targets are divided over the groups when the rollout is created (rollout-plan.ts `orderTargets`). */
  readonly groupOrder?: GroupOrder;
  /** Actions are released only inside one of these (rollout-window.ts); outside, groups and ramps wait. */
  readonly window?: readonly ReleaseWindow[];
  /** At this time (ms) the rollout stops: `stop` lets its running actions finish, `cancel` cancels them. */
  readonly endAt?: number;
  readonly endBehaviour?: EndBehaviour;
}

export const END_BEHAVIOURS = ['stop', 'cancel'] as const;
export type EndBehaviour = (typeof END_BEHAVIOURS)[number];

/**
 * `created`: in creation order (hawkBit's, the default); `random`: shuffled, the same seed giving the same
 * groups; `spread`: targets sharing a value of `attribute` (a site, an uplink) spread over the groups.
 */
export type GroupOrder =
  | { readonly order: 'created' }
  | { readonly order: 'random'; readonly seed: number }
  | { readonly order: 'spread'; readonly seed: number; readonly attribute: string };

const GROUP_ORDERS = ['created', 'random', 'spread'] as const;
const ATTRIBUTE_MAX = 128;

/** The longest soak: 30 days. */
const SOAK_MAX_MINUTES = 43_200;

/** The engine's release progress, kept in the rollout record (so it survives a restart). */
export interface Pace {
  /** The ramp's clock: when the next release is due (ms); each release advances it by one interval. */
  readonly nextAt?: number;
  /** Actions are released in id order: every action of a running group up to this id was looked at. */
  readonly after: number;
}

/** The per-status counts of the rollout the controls read (rollout-counts.ts `perStatus`). */
export interface ReleaseCounts {
  readonly running: number;
  readonly finished: number;
  readonly error: number;
  readonly cancelled: number;
}

type Given = number | null | undefined;
type Text = string | null | undefined;

/** The controls as a request gives them, before checking (numbers as sent). */
export interface ReleaseInput {
  readonly maxInFlight?: number | null | undefined;
  readonly soak?: { readonly minutes?: Given } | null | undefined;
  readonly groupOrder?: { readonly order?: Text; readonly seed?: Given; readonly attribute?: Text } | null | undefined;
  readonly window?: readonly WindowInput[] | null | undefined;
  readonly endAt?: Given;
  readonly endBehaviour?: Text;
  readonly ramp?: {
    readonly maxPerMinute?: number | null | undefined;
    readonly exponential?: {
      readonly baseRatePerMinute?: number | null | undefined;
      readonly incrementFactor?: number | null | undefined;
      readonly increaseAfter?: { readonly notified?: Given; readonly succeeded?: Given } | null | undefined;
    } | null | undefined;
  } | null | undefined;
}

/** A control out of range or contradictory: 400 `rest.body.notReadable` naming the field, as every rollout safety field (rollout-safety.ts). */
const invalid = (message: string): AppError => badRequest(message);

function wholeIn(v: number | null | undefined, field: string, min: number, max: number): number {
  if (v == null || !Number.isInteger(v) || v < min || v > max) throw invalid(`${field}: must be a whole number ${min}..${max}, got ${v ?? 'none'}`);
  return v;
}

/** Where and when controls are checked. */
export interface CheckedAt {
  readonly now: number;
  /** The rollout's auto-start time, which `endAt` must follow. */
  readonly startAt?: number | null | undefined;
  readonly where?: string;
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/** The controls of a request, checked; `undefined` when none is given (the rollout behaves as hawkBit's). */
export function releaseControlsOf(input: ReleaseInput, checked: CheckedAt): ReleaseControls | undefined {
  const { where = 'body' } = checked;
  const out: Mutable<ReleaseControls> = {};
  if (input.maxInFlight != null) out.maxInFlight = wholeIn(input.maxInFlight, `${where}.maxInFlight`, 1, 1_000_000);
  const ramp = input.ramp;
  if (ramp != null) {
    const exp = ramp.exponential;
    if ((ramp.maxPerMinute != null) === (exp != null)) throw invalid(`${where}.ramp: give exactly one of maxPerMinute or exponential`);
    if (exp == null) {
      out.ramp = { maxPerMinute: wholeIn(ramp.maxPerMinute, `${where}.ramp.maxPerMinute`, 1, MAX_RATE_PER_MINUTE) };
    } else {
      const at = `${where}.ramp.exponential`;
      const base = wholeIn(exp.baseRatePerMinute, `${at}.baseRatePerMinute`, 1, MAX_RATE_PER_MINUTE);
      const f = exp.incrementFactor;
      if (f == null || !Number.isFinite(f) || f < FACTOR_MIN || f > FACTOR_MAX) {
        throw invalid(`${at}.incrementFactor: must be ${FACTOR_MIN}..${FACTOR_MAX}, got ${f ?? 'none'}`);
      }
      const after = exp.increaseAfter;
      if (after == null || (after.notified != null) === (after.succeeded != null)) {
        throw invalid(`${at}.increaseAfter: give exactly one of notified or succeeded`);
      }
      const increaseAfter = after.notified != null
        ? { notified: wholeIn(after.notified, `${at}.increaseAfter.notified`, 1, 1_000_000_000) }
        : { succeeded: wholeIn(after.succeeded, `${at}.increaseAfter.succeeded`, 1, 1_000_000_000) };
      out.ramp = { exponential: { baseRatePerMinute: base, incrementFactor: f, increaseAfter } };
    }
  }
  if (input.soak != null) out.soak = { minutes: wholeIn(input.soak.minutes, `${where}.soak.minutes`, 1, SOAK_MAX_MINUTES) };
  if (input.groupOrder != null) out.groupOrder = groupOrderOf(input.groupOrder, `${where}.groupOrder`);
  if (input.window != null) out.window = input.window.map((w, i) => windowOf(w, `${where}.window[${i}]`));
  if (input.endAt != null) {
    if (!Number.isInteger(input.endAt) || input.endAt <= checked.now) {
      throw invalid(`${where}.endAt: must be a time (ms) in the future, got ${input.endAt}`);
    }
    if (checked.startAt != null && input.endAt <= checked.startAt) {
      throw invalid(`${where}.endAt: must be after startAt (${checked.startAt}), got ${input.endAt}`);
    }
    out.endAt = input.endAt;
  }
  if (input.endBehaviour != null) {
    const b = END_BEHAVIOURS.find((x) => x === input.endBehaviour);
    if (b === undefined || out.endAt === undefined) {
      throw invalid(`${where}.endBehaviour: ${END_BEHAVIOURS.join(' or ')}, with endAt; got '${input.endBehaviour}'`);
    }
    out.endBehaviour = b;
  }
  return Object.keys(out).length === 0 ? undefined : out;
}

function groupOrderOf(g: NonNullable<ReleaseInput['groupOrder']>, at: string): GroupOrder {
  const order = GROUP_ORDERS.find((o) => o === g.order);
  if (order === undefined) throw invalid(`${at}.order: must be one of ${GROUP_ORDERS.join(', ')}, got ${g.order ?? 'none'}`);
  const attribute = g.attribute?.trim() ?? '';
  if (order !== 'spread' && attribute !== '') throw invalid(`${at}.attribute: only with order spread`);
  if (order === 'created') {
    if (g.seed != null) throw invalid(`${at}.seed: only with order random or spread`);
    return { order };
  }
  const seed = wholeIn(g.seed, `${at}.seed`, 0, 2 ** 32 - 1);
  if (order === 'random') return { order, seed };
  if (attribute === '' || attribute.length > ATTRIBUTE_MAX) throw invalid(`${at}.attribute: the target attribute to spread by, 1..${ATTRIBUTE_MAX} characters`);
  return { order, seed, attribute };
}

/** Whether the engine releases the rollout's actions itself (else a group start starts them all). */
export function paced(controls: ReleaseControls | undefined): boolean {
  return controls !== undefined && (controls.maxInFlight !== undefined || controls.ramp !== undefined || controls.window !== undefined);
}

/** Actions started so far (every status but scheduled). */
function notified(c: ReleaseCounts): number {
  return c.running + c.finished + c.error + c.cancelled;
}

/** The release rate now (per minute): the ramp's, stepped up once per `increaseAfter` reached. */
export function rateOf(ramp: Ramp, c: ReleaseCounts): number {
  if ('maxPerMinute' in ramp) return ramp.maxPerMinute;
  const { baseRatePerMinute, incrementFactor, increaseAfter } = ramp.exponential;
  const count = 'notified' in increaseAfter ? notified(c) : c.finished;
  const every = 'notified' in increaseAfter ? increaseAfter.notified : increaseAfter.succeeded;
  const steps = Math.floor(count / every);
  return Math.min(MAX_RATE_PER_MINUTE, baseRatePerMinute * incrementFactor ** steps);
}

/**
 * A ramp that fell behind (a paused rollout, a cap, a slow pass) catches up at most this much, so it
 * never bursts: 2 seconds of its rate.
 */
const CATCH_UP_MS = 2_000;

export interface Budget {
  /** Actions to release now, at most. */
  readonly count: number;
  /** The ramp's clock after `released` releases (no ramp: undefined). */
  nextAt(released: number): number | undefined;
}

/**
 * How many actions to release now, of `waiting` scheduled ones in running groups, with `c` the
 * rollout's counts. The ramp is a virtual clock (GCRA): release k is due at `nextAt + k * interval`,
 * so the pace stays even across passes whatever their timing; `maxInFlight` caps the running ones.
 */
export function releaseBudget(controls: ReleaseControls, pace: Pace | undefined, c: ReleaseCounts, waiting: number, now: number): Budget {
  if (controls.window !== undefined && !insideWindow(controls.window, now)) return { count: 0, nextAt: () => undefined };
  let room = waiting;
  if (controls.maxInFlight !== undefined) room = Math.min(room, Math.max(0, controls.maxInFlight - c.running));
  if (controls.ramp === undefined) return { count: room, nextAt: () => undefined };
  const interval = 60_000 / rateOf(controls.ramp, c);
  const start = Math.max(pace?.nextAt ?? now, now - CATCH_UP_MS);
  const due = start > now ? 0 : Math.floor((now - start) / interval) + 1;
  return { count: Math.min(room, due), nextAt: (released) => start + released * interval };
}

/** When a group that meets its success condition now may let its successors start (no soak: undefined). */
export function soakEnd(controls: ReleaseControls | undefined, now: number): number | undefined {
  return controls?.soak === undefined ? undefined : now + controls.soak.minutes * 60_000;
}

/** Whether a group's successors still wait for its soak (`soakUntil` is set once it met its success condition). */
export function soaking(group: { readonly soakUntil?: number }, now: number): boolean {
  return group.soakUntil !== undefined && now < group.soakUntil;
}

/** Whether a rollout's `endAt` has come (then it stops, as its `endBehaviour` says). */
export function ended(controls: ReleaseControls | undefined, now: number): boolean {
  return controls?.endAt !== undefined && now >= controls.endAt;
}
