/**
 * How a kind of record is indexed: a pure function from a value to its index entries. The store
 * derives and diffs the entries itself (src/store/port.ts), so no caller maintains an index by hand.
 * - unique: (index, key) -> id, claimed atomically; a taken key fails the whole commit.
 * - multi:  (index, key) -> sorted set of ids (score defaults to the id, so pages come in id order;
 *           a numeric score allows range queries such as "last poll before t").
 */
export type UniqueEntry = readonly [index: string, key: string];
export type MultiEntry = readonly [index: string, key: string, score?: number];
export interface IndexEntries {
  readonly unique?: readonly UniqueEntry[];
  readonly multi?: readonly MultiEntry[];
}

export interface KindSchema<T = never> {
  /** Pure: the index entries of one value. Must not depend on anything but `value`. */
  readonly indexes: (value: T) => IndexEntries;
}
