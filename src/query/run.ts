/**
 * The whole list query over an in-memory candidate list: filter, count, sort, page. Resources feed it
 * every entity of a kind, or the candidates of an index plan (see plan.ts).
 */
import type { FieldMap } from './fields.js';
import { parseFilter } from './filter.js';
import type { ListParams } from './paging.js';
import { toPredicate } from './predicate.js';
import { sortEntities } from './sort.js';
import type { EvalContext } from './terms.js';

export interface QueryResult<E> {
  /** The requested page. */
  readonly content: E[];
  /** All matches, before paging. */
  readonly total: number;
}

export function queryEntities<E>(
  candidates: Iterable<E>,
  params: ListParams<E>,
  fields: FieldMap<E>,
  ctx: EvalContext,
): QueryResult<E> {
  const filter = params.filter ?? (params.q === undefined ? undefined : parseFilter(params.q, fields));
  const matches: E[] = [];
  if (filter === undefined) {
    for (const c of candidates) matches.push(c);
  } else {
    const keep = toPredicate(filter, ctx);
    for (const c of candidates) if (keep(c)) matches.push(c);
  }
  sortEntities(matches, params.sort, fields);
  return { content: matches.slice(params.offset, params.offset + params.limit), total: matches.length };
}
