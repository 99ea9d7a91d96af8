/**
 * Sorting of in-memory entities by `sort=` specs. NULLs sort last in ASC and first in DESC (DESC is the
 * exact reverse of ASC, as in PostgreSQL); strings compare case-insensitively first (as a
 * case-insensitive collation does), then by code unit so the order is total; a multi-valued field sorts
 * by its first value. The entity id is always the final tiebreaker, so pages never overlap.
 */
import { AppError } from '../domain/errors.js';
import { resolveField, type FieldMap } from './fields.js';
import type { FieldSpec, FieldValue } from './terms.js';

export type SortDirection = 'ASC' | 'DESC';

export interface SortSpec {
  /** Canonical lower-case field name (or an alias), e.g. `controllerid`. */
  readonly field: string;
  readonly dir: SortDirection;
}

type Key = string | number | boolean | null;
export type Comparator<E> = (a: E, b: E) => number;

function keyOf<E>(spec: FieldSpec<E>, entity: E): Key {
  const raw = spec.get(entity);
  const v: FieldValue | undefined = Array.isArray(raw) ? (raw as readonly FieldValue[])[0] : (raw as FieldValue | undefined);
  return v === undefined ? null : v;
}

/** Compares two non-null keys of one field; mixed types fall back to their text. */
function compareKeys(a: Exclude<Key, null>, b: Exclude<Key, null>): number {
  if (typeof a === 'number' && typeof b === 'number') return a < b ? -1 : a > b ? 1 : 0;
  if (typeof a === 'boolean' && typeof b === 'boolean') return Number(a) - Number(b);
  const sa = String(a);
  const sb = String(b);
  const la = sa.toLowerCase();
  const lb = sb.toLowerCase();
  if (la !== lb) return la < lb ? -1 : 1;
  return sa < sb ? -1 : sa > sb ? 1 : 0;
}

function compareNullable(a: Key, b: Key, dir: SortDirection): number {
  if (a === null || b === null) {
    const c = a === null ? (b === null ? 0 : 1) : -1; // nulls after values in ASC
    return dir === 'ASC' ? c : -c;
  }
  const c = compareKeys(a, b);
  return dir === 'ASC' ? c : -c;
}

function resolveSort<E>(sort: readonly SortSpec[], fields: FieldMap<E>): { spec: FieldSpec<E>; dir: SortDirection }[] {
  return sort.map((s) => {
    const r = resolveField(fields, s.field);
    if (r === undefined || r.key !== undefined || r.spec.sortable === false) {
      throw new AppError('SORT_FIELD', `sort field {${s.field}} is not supported for ${fields.resource}`);
    }
    return { spec: r.spec, dir: s.dir };
  });
}

/** A comparator over entities for the given specs, with the id as final ascending tiebreaker. */
export function compareBy<E>(sort: readonly SortSpec[], fields: FieldMap<E>): Comparator<E> {
  const specs = resolveSort(sort, fields);
  return (a, b) => {
    for (const { spec, dir } of specs) {
      const c = compareNullable(keyOf(spec, a), keyOf(spec, b), dir);
      if (c !== 0) return c;
    }
    return compareNullable(fields.idOf(a), fields.idOf(b), 'ASC');
  };
}

/** Sorts in place, reading each sort key once per entity (decorate, sort, undecorate). */
export function sortEntities<E>(list: E[], sort: readonly SortSpec[], fields: FieldMap<E>): E[] {
  const specs = resolveSort(sort, fields);
  const rows = list.map((e) => ({ e, keys: specs.map((s) => keyOf(s.spec, e)), id: fields.idOf(e) }));
  rows.sort((x, y) => {
    for (let i = 0; i < specs.length; i++) {
      const c = compareNullable(x.keys[i] ?? null, y.keys[i] ?? null, specs[i]?.dir ?? 'ASC');
      if (c !== 0) return c;
    }
    return compareNullable(x.id, y.id, 'ASC');
  });
  for (let i = 0; i < rows.length; i++) list[i] = (rows[i] as (typeof rows)[number]).e;
  return list;
}
