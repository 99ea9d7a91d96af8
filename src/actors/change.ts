/**
 * What one commit did to one actor record, as the runtime hands it to its observers and listeners and
 * the journal derives its events from (runtime.ts, journal.ts).
 */
import type { ActorKind, RecordOf } from '../domain/kinds.js';

/** A change of one actor record in a commit: `before` is undefined for a creation, `after` null for a removal. */
export type ActorChange = { readonly [K in ActorKind]: {
  readonly kind: K;
  readonly id: number;
  readonly before: RecordOf<K> | undefined;
  readonly after: RecordOf<K> | null;
} }[ActorKind];
