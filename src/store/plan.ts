import { randomUUID } from 'node:crypto';
import { diffIndexes, hasIndexes, isListed, isPacked } from './indexing.js';
import type { IndexChanges, MultiChange, UniqueChange } from './indexing.js';
import { checkId, checkKind } from './checks.js';
import { journalJson } from './journal.js';
import type { Commit, CounterIncrement, EffectMessage, Schema } from './port.js';

/** One record write, validated. `after === null` deletes. */
export interface PlannedWrite {
  readonly kind: string;
  readonly id: number;
  readonly expect: number;
  /** Write.fresh: a create of a reserved id, not checked. */
  readonly fresh: boolean;
  /** The kind keeps a list of all its ids, which a create adds to and a delete removes from (isListed). */
  readonly listed: boolean;
  /** The kind's records are kept several in one place (isPacked). */
  readonly packed: boolean;
  readonly after: unknown;
}

export interface PlannedEffect {
  readonly eventId: string;
  readonly effect: EffectMessage;
}

/**
 * A commit checked and expanded into what both adapters apply: the writes, the index changes of all
 * writes together, effects with their stable event ids, and the dedupe key. Misuse (a bad id, two
 * writes of one record, an update without `before`) throws a TypeError: it is a bug, not an outcome.
 */
export interface CommitPlan extends IndexChanges {
  readonly writes: readonly PlannedWrite[];
  readonly effects: readonly PlannedEffect[];
  /** Counter increments (zero increments dropped). */
  readonly counters: readonly CounterIncrement[];
  readonly dedupe: string | undefined;
  /** The commit's journal entry as JSON text (an array of events), when it has one. */
  readonly journal: string | undefined;
}

/** Dedupe markers live this long: far longer than any redelivery of the event that caused them. */
export const DEDUPE_TTL_MS = 7 * 24 * 3600 * 1000; // 7 days

export function planCommit(schema: Schema, commit: Commit): CommitPlan {
  const writes: PlannedWrite[] = [];
  const claims: UniqueChange[] = [];
  const releases: UniqueChange[] = [];
  const adds: MultiChange[] = [];
  const removes: MultiChange[] = [];
  const seen = new Set<string>();
  for (const w of commit.writes) {
    checkKind(w.kind);
    checkId(w.id, `${w.kind} id`);
    if (!Number.isSafeInteger(w.expect) || w.expect < 0) throw new TypeError(`${w.kind} ${w.id}: expect must be an integer >= 0, got ${w.expect}`);
    if (w.after === undefined) throw new TypeError(`${w.kind} ${w.id}: after must be a JSON value, or null to delete`);
    if (w.after === null && w.expect === 0) throw new TypeError(`${w.kind} ${w.id}: a delete needs the version read (expect > 0)`);
    if (w.fresh === true && w.expect !== 0) throw new TypeError(`${w.kind} ${w.id}: a fresh write is a create (expect 0), got expect ${w.expect}`);
    const slot = `${w.kind}\0${w.id}`;
    if (seen.has(slot)) throw new TypeError(`${w.kind} ${w.id} is written twice in one commit`);
    seen.add(slot);
    const before = w.expect === 0 ? undefined : w.before;
    if (before === undefined && w.expect > 0 && hasIndexes(schema, w.kind)) {
      throw new TypeError(`${w.kind} ${w.id}: an update of an indexed kind needs 'before' (the value read at version ${w.expect})`);
    }
    const changes = diffIndexes(schema, w.kind, w.id, before, w.after);
    claims.push(...changes.claims);
    releases.push(...changes.releases);
    adds.push(...changes.adds);
    removes.push(...changes.removes);
    writes.push({
      kind: w.kind, id: w.id, expect: w.expect, fresh: w.fresh === true,
      listed: isListed(schema, w.kind), packed: isPacked(schema, w.kind), after: w.after,
    });
  }
  const effects = (commit.effects ?? []).map((effect): PlannedEffect => {
    if (typeof effect?.type !== 'string' || effect.type.length === 0) throw new TypeError('an effect needs a non-empty string type');
    return { eventId: randomUUID(), effect };
  });
  if (commit.dedupe !== undefined && (typeof commit.dedupe !== 'string' || commit.dedupe.length === 0)) {
    throw new TypeError('dedupe must be a non-empty string');
  }
  // increments of one field add up first: a commit creating 1,000 actions of a group moves one field once
  const sums = new Map<string, CounterIncrement>();
  for (const c of commit.counters ?? []) {
    if (typeof c.key !== 'string' || c.key.length === 0 || typeof c.field !== 'string' || c.field.length === 0) {
      throw new TypeError('a counter increment needs a non-empty key and field');
    }
    if (!Number.isSafeInteger(c.by)) throw new TypeError(`counter ${c.key}.${c.field}: increment must be an integer, got ${c.by}`);
    const slot = `${c.key}\0${c.field}`;
    sums.set(slot, { key: c.key, field: c.field, by: (sums.get(slot)?.by ?? 0) + c.by });
  }
  const counters = [...sums.values()].filter((c) => c.by !== 0);
  return { writes, claims, releases, adds, removes, effects, counters, dedupe: commit.dedupe, journal: journalJson(commit.journal) };
}
