import type { CommitResult } from '../port.js';
import { DEDUPE_TTL_MS } from '../plan.js';
import type { CommitPlan } from '../plan.js';
import { JOURNAL_LENGTH } from '../journal.js';
import { allKey, counterKey, doneKey, effectsKey, journalKey, multiKey, recordPlace, scoreArg, uniqueKey } from './keys.js';

export interface ScriptCall {
  readonly keys: string[];
  readonly args: string[];
}

/** The expected version of a fresh write (Write.fresh): a create the script does not check. */
const FRESH = 'fresh';

/** KEYS and ARGV of the commit script (layout documented at the script in scripts.ts). */
export function commitCall(tag: string, plan: CommitPlan): ScriptCall {
  const fx = effectsKey(tag);
  // each sorted set once, with all its members: a record's membership in its kind's `all` set too (a listed kind's)
  const removes = new Map<string, string[]>();
  const adds = new Map<string, string[]>();
  const member = (groups: Map<string, string[]>, key: string, ...values: string[]): void => {
    const group = groups.get(key);
    if (group === undefined) groups.set(key, values);
    else for (const v of values) group.push(v);
  };
  for (const w of plan.writes) {
    if (!w.listed) continue;
    if (w.after === null) member(removes, allKey(tag, w.kind), String(w.id));
    else if (w.expect === 0) member(adds, allKey(tag, w.kind), String(w.id), String(w.id));
  }
  for (const m of plan.removes) member(removes, multiKey(tag, m.kind, m.index, m.key), String(m.id));
  for (const m of plan.adds) member(adds, multiKey(tag, m.kind, m.index, m.key), scoreArg(m.score), String(m.id));
  const keys = [fx, plan.dedupe === undefined ? fx : doneKey(tag, plan.dedupe)];
  const args = [
    plan.dedupe === undefined ? '0' : '1', String(DEDUPE_TTL_MS),
    String(plan.writes.length), String(plan.claims.length), String(plan.releases.length),
    String(removes.size), String(adds.size), String(plan.effects.length), String(plan.counters.length),
    plan.journal ?? '', String(JOURNAL_LENGTH),
  ];
  for (const w of plan.writes) {
    keys.push(recordPlace(tag, w.kind, w.id, w.packed).key);
    args.push(w.packed ? String(w.id) : '', w.fresh ? FRESH : String(w.expect), w.after === null ? '' : toJson(w.after, `${w.kind} ${w.id}`));
  }
  for (const c of plan.claims) {
    keys.push(uniqueKey(tag, c.kind, c.index, c.key));
    args.push(c.key, String(c.id));
  }
  for (const r of plan.releases) {
    keys.push(uniqueKey(tag, r.kind, r.index, r.key));
    args.push(r.key, String(r.id));
  }
  // pushed one by one: a bulk create's `all` set takes tens of thousands of values, too many to spread
  for (const [key, ids] of removes) {
    keys.push(key);
    args.push(String(ids.length));
    for (const id of ids) args.push(id);
  }
  for (const [key, pairs] of adds) {
    keys.push(key);
    args.push(String(pairs.length / 2));
    for (const v of pairs) args.push(v);
  }
  for (const e of plan.effects) args.push(e.eventId, toJson(e.effect, `effect ${e.effect.type}`));
  for (const c of plan.counters) {
    keys.push(counterKey(tag, c.key));
    args.push(c.field, String(c.by));
  }
  if (plan.journal !== undefined) keys.push(journalKey(tag));
  return { keys, args };
}

function toJson(value: unknown, what: string): string {
  const json = JSON.stringify(value);
  if (json === undefined) throw new TypeError(`${what}: value has no JSON form`);
  return json;
}

/** The script's reply as a CommitResult; anything else is a bug in the script, reported as such. */
export function commitResult(reply: unknown, plan: CommitPlan): CommitResult {
  if (!Array.isArray(reply)) throw new Error(`commit script: unexpected reply ${JSON.stringify(reply)}`);
  const [status, ...rest] = reply as unknown[];
  switch (status) {
    case 'ok':
      return { ok: true, versions: rest.map(Number) };
    case 'duplicate':
      return { ok: false, reason: 'duplicate' };
    case 'stale-version': {
      const w = plan.writes[Number(rest[0])];
      if (w === undefined) break;
      return { ok: false, reason: 'stale-version', kind: w.kind, id: w.id };
    }
    case 'unique-conflict': {
      const c = plan.claims[Number(rest[0])];
      if (c === undefined) break;
      return { ok: false, reason: 'unique-conflict', kind: c.kind, index: c.index, key: c.key };
    }
  }
  throw new Error(`commit script: unexpected reply ${JSON.stringify(reply)}`);
}
