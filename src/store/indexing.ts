import type { IndexEntries, Schema } from './port.js';

/** One unique-index key held by (or given up by) one record. */
export interface UniqueChange {
  readonly kind: string;
  readonly index: string;
  readonly key: string;
  readonly id: number;
}

/** One record's membership in a multi-index key; `score` is the sort order (defaults to the id). */
export interface MultiChange extends UniqueChange {
  readonly score: number;
}

export interface IndexChanges {
  readonly claims: readonly UniqueChange[];
  readonly releases: readonly UniqueChange[];
  readonly adds: readonly MultiChange[];
  readonly removes: readonly MultiChange[];
}

export const NO_CHANGES: IndexChanges = Object.freeze({ claims: [], releases: [], adds: [], removes: [] });

interface Normalized {
  readonly unique: Map<string, readonly [index: string, key: string]>;
  readonly multi: Map<string, readonly [index: string, key: string, score: number]>;
}

const EMPTY: Normalized = { unique: new Map(), multi: new Map() };

/** The entries of one value as maps keyed by `index \0 key`, validated. Absent values have none. */
function normalize(kind: string, id: number, entries: IndexEntries | undefined): Normalized {
  if (entries === undefined) return EMPTY;
  const unique = new Map<string, readonly [string, string]>();
  for (const [index, key] of entries.unique ?? []) {
    checkEntry(kind, index, key);
    unique.set(`${index}\0${key}`, [index, key]);
  }
  const multi = new Map<string, readonly [string, string, number]>();
  for (const [index, key, rawScore] of entries.multi ?? []) {
    checkEntry(kind, index, key);
    const score = rawScore ?? id;
    if (typeof score !== 'number' || !Number.isFinite(score)) {
      throw new TypeError(`${kind} multi index ${index}: score must be a finite number, got ${String(score)}`);
    }
    const slot = `${index}\0${key}`;
    const seen = multi.get(slot);
    if (seen !== undefined && seen[2] !== score) {
      throw new TypeError(`${kind} multi index ${index}: key '${key}' listed twice with scores ${seen[2]} and ${score}`);
    }
    multi.set(slot, [index, key, score]);
  }
  return { unique, multi };
}

function checkEntry(kind: string, index: unknown, key: unknown): void {
  if (typeof index !== 'string' || index.length === 0 || index.includes(':')) {
    throw new TypeError(`${kind}: index name must be a non-empty string without ':', got ${JSON.stringify(index)}`);
  }
  if (typeof key !== 'string') throw new TypeError(`${kind} index ${index}: key must be a string, got ${typeof key}`);
}

function entriesOf(schema: Schema, kind: string, value: unknown): IndexEntries | undefined {
  if (value === undefined || value === null) return undefined;
  return schema[kind]?.indexes(value);
}

/** Whether writes of this kind maintain indexes (and so need `before` on updates). */
export function hasIndexes(schema: Schema, kind: string): boolean {
  return Object.hasOwn(schema, kind);
}

/** Whether the store keeps a list of every id of the kind (its `all` index; see KindSchema.unlisted). */
export function isListed(schema: Schema, kind: string): boolean {
  return schema[kind]?.unlisted !== true;
}

/** Whether the store may keep the kind's records several in one place (KindSchema.packed). */
export function isPacked(schema: Schema, kind: string): boolean {
  return schema[kind]?.packed === true;
}

/** `ids` and `count` of a whole kind: an unlisted kind has no list of its ids, and asking for one is a bug. */
export function checkListed(schema: Schema, kind: string): void {
  if (!isListed(schema, kind)) throw new TypeError(`${kind} keeps no list of all its ids: read them through one of its multi indexes`);
}

/**
 * The index changes one write causes: entries of `after` missing from `before` are claimed/added,
 * entries of `before` missing from `after` are released/removed. A multi entry whose score changed is
 * re-added (sorted sets update the score in place). `before` undefined: a create; `after` null: a delete.
 */
export function diffIndexes(schema: Schema, kind: string, id: number, before: unknown, after: unknown): IndexChanges {
  if (!hasIndexes(schema, kind)) return NO_CHANGES;
  const old = normalize(kind, id, entriesOf(schema, kind, before));
  const next = normalize(kind, id, entriesOf(schema, kind, after));
  const claims: UniqueChange[] = [];
  const releases: UniqueChange[] = [];
  const adds: MultiChange[] = [];
  const removes: MultiChange[] = [];
  for (const [slot, [index, key]] of next.unique) {
    if (!old.unique.has(slot)) claims.push({ kind, index, key, id });
  }
  for (const [slot, [index, key]] of old.unique) {
    if (!next.unique.has(slot)) releases.push({ kind, index, key, id });
  }
  for (const [slot, [index, key, score]] of next.multi) {
    if (old.multi.get(slot)?.[2] !== score) adds.push({ kind, index, key, id, score });
  }
  for (const [slot, [index, key, score]] of old.multi) {
    if (!next.multi.has(slot)) removes.push({ kind, index, key, id, score });
  }
  if (claims.length + releases.length + adds.length + removes.length === 0) return NO_CHANGES;
  return { claims, releases, adds, removes };
}
