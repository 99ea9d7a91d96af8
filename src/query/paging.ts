/**
 * Management API list parameters: `offset`, `limit`, `sort`, `q`.
 * Paging is clamped as hawkBit's PagingUtility does (offset < 0 → 0, limit < 1 → the default, limit
 * over the maximum → the maximum), because scripts written against hawkBit rely on it. What hawkBit's
 * `int` parameters refuse stays a 400 naming the parameter: text that is not an integer, and values
 * beyond int32 (Spring's type mismatch).
 * An empty parameter (`?q=&limit=`) counts as absent, as Spring treats it with a default value.
 * @see reference/hawkbit-api.md section 3.0
 */
import { AppError } from '../domain/errors.js';
import { resolveField, type FieldMap } from './fields.js';
import { parseFilter } from './filter.js';
import { show } from './operands.js';
import type { SortSpec } from './sort.js';
import type { Filter } from './terms.js';

const INT32_MAX = 2147483647; // hawkBit's paging parameters are Java ints
const INT32_MIN = -2147483648;
export const MAX_SORT_TERMS = 16;

export interface ListParams<E = unknown> {
  readonly offset: number;
  readonly limit: number;
  readonly sort: readonly SortSpec[];
  /** The raw FIQL text, when given. */
  readonly q?: string;
  /** The parsed `q`, when `filterFields` was passed to parseListParams. */
  readonly filter?: Filter<E>;
}

export interface ListOptions<E> {
  /** 50 for hawkBit's lists. */
  readonly defaultLimit: number;
  /** 500 for hawkBit's lists. */
  readonly maxLimit: number;
  readonly sortFields: FieldMap<E>;
  /** Used when `sort` is absent (targets: controllerid:ASC; actions: id:DESC; others: id:ASC). */
  readonly defaultSort: readonly SortSpec[];
  /** When given, `q` is parsed against it here, so a bad q fails before any store access. */
  readonly filterFields?: FieldMap<E>;
}

const INTEGER = /^[+-]?\d{1,20}$/;

function single(query: URLSearchParams, name: string): string | undefined {
  const all = query.getAll(name);
  if (all.length > 1) throw new AppError('BAD_PARAMETER', `${name} must be given at most once, got ${all.length} values`);
  const v = all[0];
  return v === undefined || v === '' ? undefined : v;
}

/** An int32 query parameter, or undefined when absent. */
function int32(query: URLSearchParams, name: string): number | undefined {
  const raw = single(query, name);
  if (raw === undefined) return undefined;
  if (!INTEGER.test(raw)) throw new AppError('BAD_PARAMETER', `${name} must be an integer, got '${show(raw)}'`);
  const n = Number(raw);
  if (n < INT32_MIN || n > INT32_MAX) throw new AppError('BAD_PARAMETER', `${name} must be a 32-bit integer, got ${raw}`);
  return n;
}

/** Parses `field:ASC|DESC[,field:DIR...]`; field and direction are case-insensitive. */
export function parseSort<E>(raw: string, fields: FieldMap<E>): SortSpec[] {
  const terms = raw.split(',');
  if (terms.length > MAX_SORT_TERMS) {
    throw new AppError('SORT_SYNTAX', `sort takes at most ${MAX_SORT_TERMS} terms, got ${terms.length}`);
  }
  return terms.map((term) => {
    const parts = term.split(':');
    const field = parts[0]?.trim() ?? '';
    const dir = parts[1]?.trim() ?? '';
    if (parts.length !== 2 || field === '' || dir === '') {
      throw new AppError('SORT_SYNTAX', `sort term '${show(term)}' is not well formed: expected field:ASC or field:DESC`);
    }
    const resolved = resolveField(fields, field);
    if (resolved === undefined || resolved.key !== undefined || resolved.spec.sortable === false) {
      const sortable = [...fields.fields].filter(([, s]) => s.sortable !== false).map(([n]) => n);
      throw new AppError('SORT_FIELD', `sort field {${show(field)}} is not supported, must be one of [${sortable.join(', ')}]`);
    }
    const upper = dir.toUpperCase();
    if (upper !== 'ASC' && upper !== 'DESC') {
      throw new AppError('SORT_DIRECTION', `sort direction {${show(dir)}} of field {${field}} is not supported, must be ASC or DESC`);
    }
    return { field: field.toLowerCase(), dir: upper };
  });
}

export function parseListParams<E>(query: URLSearchParams, opts: ListOptions<E>): ListParams<E> {
  const offset = Math.max(0, int32(query, 'offset') ?? 0);
  const rawLimit = int32(query, 'limit') ?? opts.defaultLimit;
  const limit = rawLimit < 1 ? opts.defaultLimit : Math.min(rawLimit, opts.maxLimit);
  const rawSort = single(query, 'sort');
  const sort = rawSort === undefined ? opts.defaultSort : parseSort(rawSort, opts.sortFields);
  const q = single(query, 'q');
  if (q === undefined) return { offset, limit, sort };
  const filter = opts.filterFields === undefined ? undefined : parseFilter(q, opts.filterFields);
  return filter === undefined ? { offset, limit, sort, q } : { offset, limit, sort, q, filter };
}
