/**
 * How a kind of record is indexed: a pure function from a value to its index entries. The store
 * derives and diffs the entries itself (src/store/port.ts), so no caller maintains an index by hand.
 * - unique: (index, key) -> id, claimed atomically; a taken key fails the whole commit.
 * - multi:  (index, key) -> sorted set of ids (score defaults to the id, so pages come in id order;
 *           a numeric score allows range queries such as "last poll before t").
 */
export type UniqueEntry<U extends string = string> = readonly [index: U, key: string];
export type MultiEntry<M extends string = string> = readonly [index: M, key: string, score?: number];
export interface IndexEntries<U extends string = string, M extends string = string> {
  readonly unique?: readonly UniqueEntry<U>[];
  readonly multi?: readonly MultiEntry<M>[];
}

/** The index names of a kind: its unique and its multi indexes (`never` for none). */
export interface IndexNames {
  readonly unique: string;
  readonly multi: string;
}

/**
 * How one kind is indexed. `I` declares its index names, so an entry of an undeclared index is a
 * compile error here, and a read of one wherever the kind is named by its constant (src/domain/kinds.ts).
 */
export interface KindSchema<T = never, I extends IndexNames = IndexNames> {
  /** Pure: the index entries of one value. Must not depend on anything but `value`. */
  readonly indexes: (value: T) => IndexEntries<I['unique'], I['multi']>;
  /**
   * Records of this kind are listed only through one of its multi indexes (an action's status entries,
   * by action): the store keeps no list of all its ids, a command and an index entry less per create,
   * and `ids`/`count` of the whole kind are a TypeError.
   */
  readonly unlisted?: true;
  /**
   * Records of this kind are small, created once and read seldom (an action's status entries): the store
   * may keep several in one place (Redis: one hash per 32 consecutive ids, src/store/redis/keys.ts), about
   * 100 bytes less per record. Reads and writes are those of any kind; on Redis, a write of one drops the
   * cached reads of its neighbours too.
   */
  readonly packed?: true;
}
