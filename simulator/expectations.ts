/**
 * Expectations: one line of English each, parsed into a check that decides the exit code.
 *
 *   rollout finished within 120 s      the rollout the steps created reaches the state within N s of its start
 *   rollout paused                     ... reaches the state before the run ends
 *   rollout paused by its error threshold   paused with a group in error (its error condition tripped)
 *   all devices in_sync                every target of the fleet has that update status (Management API)
 *   all devices of GROUP in_sync       ... every target of that device group
 *   all devices in_sync within 60 s after the server is back
 *                                      ... within N s of the server answering again after a `run` step or
 *                                      an outage the run saw (fails once N s passed without)
 *   no update lost                     every update a device finished and the server acknowledged is on
 *                                      the server: targets in_sync >= devices done (decided at the end)
 *   failure share below 5%             failed updates / finished updates on the devices
 *   no 5xx  |  no errors               no answer 5xx (any error) to any device request
 *   at least 10 updates                a device counter reached N: updates, successes, failures,
 *                                      cancels accepted, cancels rejected, confirmations, denials
 *
 * "Eventually" checks pass as soon as they hold and fail when the run ends without; "final" checks
 * (shares, no 5xx) are decided once at the end.
 */

const ROLLOUT_STATES = ['ready', 'running', 'paused', 'finished', 'stopped'] as const;
const TARGET_STATES = ['in_sync', 'pending', 'error', 'registered'] as const;
const COUNTERS = ['updates', 'successes', 'failures', 'cancelsAccepted', 'cancelsRejected', 'confirmations', 'denials'] as const;
/** A device counter: its key in the report (camelCase) and, as words, in an expectation (`cancels accepted`). */
export type Counter = (typeof COUNTERS)[number];

/** `cancelsAccepted` as an expectation says it: `cancels accepted`. */
export const counterWords = (c: Counter): string => c.replace(/[A-Z]/g, (x) => ` ${x.toLowerCase()}`);

export type Expectation = { readonly text: string } & (
  | { readonly kind: 'rollout'; readonly status: (typeof ROLLOUT_STATES)[number]; readonly withinS?: number }
  | { readonly kind: 'errorThreshold' }
  | { readonly kind: 'allDevices'; readonly status: (typeof TARGET_STATES)[number]; readonly group?: string; readonly afterBackS?: number }
  | { readonly kind: 'noUpdateLost' }
  | { readonly kind: 'failureShare'; readonly belowPercent: number }
  | { readonly kind: 'noErrors'; readonly only5xx: boolean }
  | { readonly kind: 'atLeast'; readonly n: number; readonly counter: Counter }
);

const oneOf = <T extends string>(list: readonly T[], v: string): v is T => (list as readonly string[]).includes(v);

/** The expectation, or a message saying what is wrong with the line. */
export function parseExpectation(raw: string): Expectation | string {
  const text = raw.trim().replace(/\s+/g, ' ');
  let m: RegExpExecArray | null;
  if ((m = /^rollout ([a-z_]+)(?: within (\d+(?:\.\d+)?) ?s)?$/.exec(text))) {
    const status = m[1]!;
    if (!oneOf(ROLLOUT_STATES, status)) return `unknown rollout state '${status}' (one of ${ROLLOUT_STATES.join(', ')})`;
    return m[2] === undefined ? { text, kind: 'rollout', status } : { text, kind: 'rollout', status, withinS: Number(m[2]) };
  }
  if (text === 'rollout paused by its error threshold') return { text, kind: 'errorThreshold' };
  if ((m = /^all devices(?: of ([A-Za-z0-9_-]+))? ([a-z_]+)(?: within (\d+(?:\.\d+)?) ?s after the server is back)?$/.exec(text))) {
    const status = m[2]!;
    if (!oneOf(TARGET_STATES, status)) return `unknown update status '${status}' (one of ${TARGET_STATES.join(', ')})`;
    return {
      text, kind: 'allDevices', status, ...(m[1] === undefined ? {} : { group: m[1] }), ...(m[3] === undefined ? {} : { afterBackS: Number(m[3]) }),
    };
  }
  if (text === 'no update lost') return { text, kind: 'noUpdateLost' };
  if ((m = /^failure share below (\d+(?:\.\d+)?) ?%$/.exec(text))) return { text, kind: 'failureShare', belowPercent: Number(m[1]) };
  if (text === 'no 5xx' || text === 'no errors') return { text, kind: 'noErrors', only5xx: text === 'no 5xx' };
  if ((m = /^at least (\d+) ([a-z ]+)$/.exec(text))) {
    const counter = COUNTERS.find((c) => counterWords(c) === m![2]);
    if (counter === undefined) return `unknown counter '${m[2]!}' (one of ${COUNTERS.map(counterWords).join(', ')})`;
    return { text, kind: 'atLeast', n: Number(m[1]), counter };
  }
  return `unknown expectation '${text}' (e.g. 'rollout finished within 120 s', 'rollout paused by its error threshold', `
    + `'all devices in_sync', 'all devices in_sync within 60 s after the server is back', 'no update lost', `
    + `'failure share below 5%', 'no 5xx', 'no errors', 'at least 10 updates')`;
}

/** What the run observed so far, as the checks need it. */
export interface Observation {
  readonly now: number;
  /** The rollout the steps created, as last read from the Management API. */
  readonly rollout?: {
    readonly status: string;
    readonly startedAt?: number;
    /** States seen so far, with when each was first seen (a check for `paused` passes even when the rollout resumed since). */
    readonly seen: ReadonlyMap<string, number>;
    readonly pausedByError: boolean;
  };
  readonly counters: Readonly<Record<Counter, number>>;
  readonly errorsByStatus: Readonly<Record<string, number>>;
  /** When the server last answered again after being unreachable (a `run` step's restart, or an outage seen). */
  readonly serverBackAt?: number;
  /** Devices whose update finished with success, acknowledged by the server. */
  readonly devicesDone: number;
  /** Targets of the fleet (or of one group) on the server, and how many of them are NOT in the status (Management API). */
  targets(status: string, group?: string): Promise<{ readonly devices: number; readonly found: number; readonly notIn: number }>;
}

export type Verdict = { readonly state: 'pass' | 'fail' | 'open'; readonly expected: string; readonly seen: string };

/** Decides one expectation; `final` is true once the run ended (open checks then fail). */
export async function judge(e: Expectation, o: Observation, final: boolean): Promise<Verdict> {
  const open = (expected: string, seen: string): Verdict => ({ state: final ? 'fail' : 'open', expected, seen });
  switch (e.kind) {
    case 'rollout': {
      const expected = e.withinS === undefined ? `rollout ${e.status}` : `rollout ${e.status} within ${e.withinS} s of its start`;
      if (!o.rollout) return open(expected, 'no rollout was created');
      const started = o.rollout.startedAt;
      const took = started === undefined ? undefined : (o.now - started) / 1000;
      const seen = `rollout ${o.rollout.status}${took === undefined ? ' (not started)' : ` after ${took.toFixed(1)} s`}`;
      const reached = o.rollout.seen.get(e.status);
      if (reached !== undefined) {
        const at = started === undefined ? '' : ` ${(Math.max(0, reached - started) / 1000).toFixed(1)} s after its start`;
        return { state: 'pass', expected, seen: `rollout ${e.status}${at}${o.rollout.status === e.status ? '' : `, now ${o.rollout.status}`}` };
      }
      if (e.withinS !== undefined && took !== undefined && took > e.withinS) return { state: 'fail', expected, seen };
      return open(expected, seen);
    }
    case 'errorThreshold': {
      const expected = 'rollout paused with a group in error';
      if (!o.rollout) return open(expected, 'no rollout was created');
      const seen = `rollout ${o.rollout.status}${o.rollout.pausedByError ? ', a group in error' : ', no group in error'}`;
      return o.rollout.pausedByError ? { state: 'pass', expected, seen } : open(expected, seen);
    }
    case 'allDevices': {
      const within = e.afterBackS === undefined ? '' : ` within ${e.afterBackS} s after the server is back`;
      const expected = `0 targets of ${e.group === undefined ? 'the fleet' : `group ${e.group}`} not ${e.status}${within}`;
      const back = o.serverBackAt;
      const since = back === undefined ? '' : ` ${((o.now - back) / 1000).toFixed(1)} s after the server was back`;
      if (e.afterBackS !== undefined && back === undefined) return open(expected, 'the server was never away and back');
      const late = e.afterBackS !== undefined && back !== undefined && o.now - back > e.afterBackS * 1000;
      const notYet = (seen: string): Verdict => (late ? { state: 'fail', expected, seen: seen + since } : open(expected, seen + since));
      // vacuous truth does not count: every device must exist on the server as a target
      const t = await o.targets(e.status, e.group);
      if (t.found < t.devices) return notYet(`${t.found} of ${t.devices} devices known to the server`);
      const seen = `${t.notIn} of ${t.found} targets not ${e.status}`;
      return t.notIn === 0 ? { state: 'pass', expected, seen: seen + since } : notYet(seen);
    }
    case 'noUpdateLost': {
      const expected = 'targets in_sync on the server >= devices that finished an acknowledged update';
      if (!final) return { state: 'open', expected, seen: `${o.devicesDone} devices done` };
      const t = await o.targets('in_sync');
      const seen = `${t.found - t.notIn} in_sync, ${o.devicesDone} devices done`;
      return { state: t.found - t.notIn >= o.devicesDone ? 'pass' : 'fail', expected, seen };
    }
    case 'atLeast': {
      const n = o.counters[e.counter];
      const expected = `${counterWords(e.counter)} >= ${e.n}`;
      const seen = `${counterWords(e.counter)} = ${n}`;
      return n >= e.n ? { state: 'pass', expected, seen } : open(expected, seen);
    }
    case 'failureShare': {
      const done = o.counters.successes + o.counters.failures;
      const share = done === 0 ? 0 : (100 * o.counters.failures) / done;
      const expected = `failed updates < ${e.belowPercent}% of finished updates`;
      const seen = `${share.toFixed(2)}% (${o.counters.failures} of ${done})`;
      if (!final) return { state: 'open', expected, seen };
      return { state: share < e.belowPercent ? 'pass' : 'fail', expected, seen };
    }
    case 'noErrors': {
      const bad = Object.entries(o.errorsByStatus).filter(([k]) => !e.only5xx || /^5\d\d$/.test(k));
      const n = bad.reduce((a, [, v]) => a + v, 0);
      const expected = e.only5xx ? 'no device request answered 5xx' : 'no device request failed';
      const seen = n === 0 ? 'none' : bad.map(([k, v]) => `${k}: ${v}`).join(', ');
      if (n > 0) return { state: 'fail', expected, seen };
      return { state: final ? 'pass' : 'open', expected, seen };
    }
  }
}

/** Checks that pass on their own while the run goes on (the run may end once all are decided). */
export function isEventual(e: Expectation): boolean {
  return e.kind !== 'failureShare' && e.kind !== 'noErrors' && e.kind !== 'noUpdateLost';
}
