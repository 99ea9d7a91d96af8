import { concurrent, keyTaken, notFound } from '../domain/errors.js';
import type { EditResult, RemoveResult } from './runtime.js';

/**
 * The API errors for the runtime's outcomes that callers do not handle themselves: a record that is
 * gone answers 404 naming it, a lost race 409 (the client retries).
 */

/** The records after a field edit (`update`, `updateEach`), or the error. */
export function edited<R>(result: EditResult<R>, label: string, id?: string | number): readonly R[] {
  switch (result.kind) {
    case 'updated':
    case 'unchanged':
      return result.records;
    case 'missing':
      throw notFound(label, id ?? result.id);
    case 'unique-conflict':
      throw keyTaken(label, result.index, result.key);
    case 'contended':
      throw concurrent(label, id);
  }
}

/** Nothing after a removal that must happen, or the error. */
export function removed(result: RemoveResult, label: string, id: string | number): void {
  switch (result.kind) {
    case 'removed':
    case 'kept':
      return;
    case 'missing':
      throw notFound(label, id);
    case 'contended':
      throw concurrent(label, id);
  }
}
