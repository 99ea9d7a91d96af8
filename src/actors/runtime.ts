import { randomUUID } from 'node:crypto';
import type { Effect } from '../domain/effects.js';
import type { ActorKind, EventOf, RecordOf } from '../domain/kinds.js';
import type { Commit, CounterIncrement, EffectMessage, Store, Stored, Tenant, Write } from '../store/port.js';
import { retryCommit, type Attempt } from '../store/retry.js';
import type { ActorChange } from './change.js';
import { MACHINE_VERSION_FIELD, type ActorDefinition, type ActorDefinitions } from './definition.js';
import { GroupQueue } from './group-queue.js';
import { journalOf } from './journal.js';
import { KeyedLock } from './keyed-lock.js';
import { step, type Step } from './step.js';

export type SendResult<R> =
  | { readonly kind: 'committed'; readonly record: R; readonly version: number; readonly effectIds: readonly string[] }
  /** No transition was enabled for the event: nothing written. */
  | { readonly kind: 'ignored'; readonly record: R }
  | { readonly kind: 'missing' }
  /** The dedupe key was already used: the event had been applied before. */
  | { readonly kind: 'duplicate' }
  /** Lost the compare-and-set more often than the retry budget allows. */
  | { readonly kind: 'contended' };

/** A `knownOnly` send's commit on the known record lost (it, or a record its event writes with it, moved on): nothing written. */
export type Stale = { readonly kind: 'stale' };

export interface SendOptions<K extends ActorKind> {
  /** Apply at most once for this key (the id of the effect being handled). */
  readonly dedupe?: string;
  /**
   * The record as the caller read it in this request (a device's action): the first attempt steps it
   * instead of reading it again. Compare-and-set rejects it when it was not the latest version, and an
   * event it ignores is tried on the record read afresh, so it costs a read only when it was stale.
   */
  readonly known?: Stored<RecordOf<K>>;
  /**
   * Extra writes committed atomically with the transition, computed from the next record (new
   * actors in them come from `ActorRuntime.creation`). Runs again on every retry; may throw to refuse.
   */
  readonly also?: (next: RecordOf<K>, current: Stored<RecordOf<K>>) => Write[] | Promise<Write[]>;
  /** Extra effects committed with the transition (e.g. "cancel these obsolete actions"); asked after `also`. */
  readonly effects?: (next: RecordOf<K>, current: Stored<RecordOf<K>>) => readonly Effect[];
  /**
   * Group commit (with `known`, and without `dedupe` and `also`): the first attempt is committed, with its
   * `effects`, together with the other grouped sends to the tenant's actors that arrive in the same loop
   * turn or while the previous group's commit is under way, in one store commit (see `#commitGroup`). The
   * result is the send's own, as alone: a send the record ignores, or whose record changed, goes on alone.
   */
  readonly group?: boolean;
}

/**
 * A send decided on the caller's copy of the record (`known`) and committed only on it: nothing is read,
 * nothing retried. 'stale' when its compare-and-set lost (the record is not at the known version any more,
 * or a record the event writes with it moved on): the caller decides again on a fresh read (DMF's
 * KnownActions); 'ignored' (with the known record) when the event changes nothing on it. Grouped like any
 * send with `group`.
 */
export type KnownOnlyOptions<K extends ActorKind> = Pick<SendOptions<K>, 'effects' | 'group'> & {
  readonly known: Stored<RecordOf<K>>;
  readonly knownOnly: true;
};

/** What `#send` is told: a send's options, or a known-only send's. */
type SendMode<K extends ActorKind> = SendOptions<K> & { readonly knownOnly?: boolean };

/** A grouped send, stepped: its writes (record, entries, followed receivers) and effects. */
interface GroupPart {
  readonly g: Grouped;
  readonly writes: Write[];
  readonly record: Json;
  readonly effects: readonly (EffectMessage & { readonly eid: string })[];
}

/** A grouped send waiting for its group's commit. */
interface Grouped {
  readonly kind: ActorKind;
  readonly id: number;
  readonly event: { readonly type: string };
  readonly known: Stored<Json>;
  readonly effects: ((next: Json, current: Stored<Json>) => readonly Effect[]) | undefined;
  readonly knownOnly: boolean;
  readonly resolve: (result: SendResult<unknown> | Stale | Promise<SendResult<unknown> | Stale>) => void;
  readonly reject: (error: unknown) => void;
}

/** One event to one actor as the caller read it, for `sendJointly`. */
export type JointEvent = {
  readonly [K in ActorKind]: { readonly kind: K; readonly stored: Stored<RecordOf<K>>; readonly event: EventOf<K> };
}[ActorKind];

export type JointResult =
  | { readonly kind: 'committed' }
  /** The event at this position changes nothing on the record as read: nothing was written. */
  | { readonly kind: 'ignored'; readonly index: number }
  /** A record changed since it was read (or a unique key is taken): nothing was written. */
  | { readonly kind: 'stale' };

export type CreateResult =
  | { readonly ok: true }
  | { readonly ok: false; readonly reason: 'exists' | 'unique-conflict'; readonly index?: string };

export type EditResult<R> =
  | { readonly kind: 'updated'; readonly records: readonly R[] }
  /** `change` returned every record as it was: nothing written. */
  | { readonly kind: 'unchanged'; readonly records: readonly R[] }
  | { readonly kind: 'missing'; readonly id: number }
  | { readonly kind: 'unique-conflict'; readonly index: string; readonly key: string }
  | { readonly kind: 'contended' };

export type RemoveResult = { readonly kind: 'removed' | 'kept' | 'missing' | 'contended' };

export interface RemoveOptions<K extends ActorKind> {
  /** Checked against the record as it is at each attempt; false keeps it ('kept'). */
  readonly when?: (current: RecordOf<K>) => boolean;
  /** Writes committed with the removal (records that go with it, e.g. an action's status history). */
  readonly also?: (current: Stored<RecordOf<K>>) => Promise<Write[]>;
}

/**
 * Derives effects from the actor changes of one commit; they are committed in it (e.g. the DMF
 * connector's messages to devices, src/dmf/observer.ts). It sees every change of every actor, because
 * the runtime is the only writer of actor records: transitions, creations, field edits, removals, and
 * the actor records a commit's `also` adds. Runs on every such commit: keep it pure and quick.
 */
export type ActorObserver = (tenant: Tenant, changes: readonly ActorChange[]) => readonly Effect[];

/** The event a `send` applied, for a listener that wants its details (a pause's reason). */
export interface CommitCause {
  readonly kind: ActorKind;
  readonly id: number;
  readonly event: { readonly type: string };
}

/**
 * Told of every commit with actor changes once the store accepted it, on the instance that made it:
 * so it hears each change exactly once, however many instances and loops run (the activity log and
 * counters, src/observability/activity.ts). `writes` are all of the commit's writes (status entries
 * too). Must not throw (it is guarded) and should be quick.
 */
export type CommitListener = (
  tenant: Tenant, changes: readonly ActorChange[], writes: readonly Write[], cause: CommitCause | undefined,
) => void;

/** What one event did to one record: its writes (record, status entries), the step, the next record. */
interface Stepped<K extends ActorKind> {
  readonly writes: Write[];
  readonly next: Step<Json>;
  readonly record: RecordOf<K>;
}

/** Attempts for events (devices and effects contend on busy actors) and for field edits. */
const SEND_ATTEMPTS = 40;
const EDIT_ATTEMPTS = 8;

type Json = Record<string, unknown>;

/** An event stepped on a record as read, to be committed with others (`sendJointly`, a group commit). */
interface JointStep {
  readonly def: ActorDefinition<ActorKind>;
  readonly stored: Stored<Json>;
  readonly next: Step<Json>;
}

/**
 * The actor runtime, the only writer of actor records (the kinds of domain/kinds.ts `ActorTypes`):
 * - `send`: load the record (the snapshot), compute the next one with the pure `step`, commit it
 *   with compare-and-set together with the effects it emitted and the records its `entry` outputs
 *   describe, all in one atomic store commit; a lost compare-and-set reloads and retries. Effects are
 *   delivered by the EffectDispatcher through the durable queue.
 * - `create`, `update`, `remove`: new actors, plain field edits (name, tags, metadata, attributes, ...;
 *   never the state field, which only events change) and deletions, with the same compare-and-set.
 * Every record written is stamped with its machine version and passed through the kind's `finalize`.
 */
export class ActorRuntime {
  readonly #store: Store;
  readonly #defs: ActorDefinitions;
  readonly #observers: readonly ActorObserver[];
  readonly #lock = new KeyedLock();
  readonly #listener: CommitListener | undefined;
  readonly #groups = new GroupQueue<Grouped>((tenant, batch) => this.#commitGroup(tenant, batch).catch((error: unknown) => {
    for (const g of batch) g.reject(error); // those answered already stay answered
  }));

  constructor(store: Store, definitions: ActorDefinitions, observers: readonly ActorObserver[] = [], listener?: CommitListener) {
    this.#store = store;
    this.#defs = definitions;
    this.#observers = observers;
    this.#listener = listener;
  }

  definition<K extends ActorKind>(kind: K): ActorDefinition<K> {
    return this.#defs[kind];
  }

  /** The write that creates an actor record, stamped and finalized (for the `also` of another commit). */
  creation<K extends ActorKind>(kind: K, record: RecordOf<K>): Write {
    return { kind, id: record.id, expect: 0, after: this.#persisted(this.definition(kind), record as unknown as Json) };
  }

  /** Persists new actors in their given state (no transition runs), all or none. */
  async create<K extends ActorKind>(
    tenant: Tenant, kind: K, records: RecordOf<K> | readonly RecordOf<K>[], also: readonly Write[] = [],
  ): Promise<CreateResult> {
    const list = Array.isArray(records) ? (records as readonly RecordOf<K>[]) : [records as RecordOf<K>];
    const writes = [...list.map((r) => this.creation(kind, r)), ...also];
    const commit = this.#observed(tenant, { writes });
    const result = await this.#store.commit(tenant, commit);
    if (result.ok) {
      return this.#committed(tenant, commit, undefined, { ok: true });
    }
    if (result.reason === 'unique-conflict') return { ok: false, reason: 'unique-conflict', index: result.index };
    return { ok: false, reason: 'exists' };
  }

  send<K extends ActorKind>(
    tenant: Tenant, kind: K, id: number, event: EventOf<K>, options: KnownOnlyOptions<K>,
  ): Promise<SendResult<RecordOf<K>> | Stale>;
  send<K extends ActorKind>(
    tenant: Tenant, kind: K, id: number, event: EventOf<K>, options?: SendOptions<K>,
  ): Promise<SendResult<RecordOf<K>>>;
  send<K extends ActorKind>(
    tenant: Tenant, kind: K, id: number, event: EventOf<K>, options: SendMode<K> = {},
  ): Promise<SendResult<RecordOf<K>> | Stale> {
    return this.#lock.run(`${tenant}\u0000${kind}\u0000${id}`, () => {
      const { known } = options;
      if (options.group !== true || known === undefined || options.dedupe !== undefined || options.also !== undefined) {
        return this.#send(tenant, kind, id, event, options);
      }
      if (known.id !== id) throw new Error(`${kind} ${id}: the known record is ${kind} ${known.id}`);
      return new Promise<SendResult<RecordOf<K>> | Stale>((resolve, reject) => {
        this.#groups.add(tenant, {
          kind, id, event, known: known as unknown as Stored<Json>,
          effects: options.effects as Grouped['effects'], knownOnly: options.knownOnly === true,
          resolve: resolve as Grouped['resolve'], reject,
        });
      });
    });
  }

  /**
   * Edits fields of one actor record with compare-and-set, retrying when another writer got in
   * between. `change` sees the current record each attempt; it may throw (an AppError) to refuse, and
   * must not change the state field.
   */
  update<K extends ActorKind>(
    tenant: Tenant, kind: K, id: number, change: (current: RecordOf<K>) => RecordOf<K> | Promise<RecordOf<K>>,
  ): Promise<EditResult<RecordOf<K>>> {
    return this.#lock.run(`${tenant}\u0000${kind}\u0000${id}`, () => this.updateEach(tenant, kind, [id], change));
  }

  /**
   * The same for several records of one kind in one atomic commit (all or none), `change` applied to
   * each record on its own (for a decision over the whole set: updateJointly).
   */
  updateEach<K extends ActorKind>(
    tenant: Tenant, kind: K, ids: readonly number[], change: (current: RecordOf<K>) => RecordOf<K> | Promise<RecordOf<K>>,
  ): Promise<EditResult<RecordOf<K>>> {
    return this.updateJointly(tenant, kind, ids, async (current) => {
      const next: RecordOf<K>[] = [];
      for (const r of current) next.push(await change(r));
      return next;
    });
  }

  /**
   * Several records in one atomic commit, with `change` seeing all the records at once (in the order
   * of `ids`) and answering each one's next value, for a decision over the whole set such as a tag
   * toggle: it runs again on every retry, on the records as that attempt read them, so the decision
   * and the writes commit together. Records returned as they were are not written.
   */
  async updateJointly<K extends ActorKind>(
    tenant: Tenant, kind: K, ids: readonly number[],
    change: (current: readonly RecordOf<K>[]) => readonly RecordOf<K>[] | Promise<readonly RecordOf<K>[]>,
  ): Promise<EditResult<RecordOf<K>>> {
    const def = this.definition(kind);
    const outcome = await retryCommit<EditResult<RecordOf<K>>>(this.#store, tenant, async () => {
      const found = await this.#store.getMany<Json>(tenant, kind, ids);
      const missing = found.findIndex((f) => f === undefined);
      if (missing >= 0) return { done: { kind: 'missing', id: ids[missing] ?? 0 } };
      const current = found as Stored<Json>[];
      for (const stored of current) this.#checkVersion(def, stored);
      const changed = await change(current.map((s) => s.value as unknown as RecordOf<K>));
      if (changed.length !== current.length) throw new Error(`${kind}: updateJointly's change answered ${changed.length} records for ${current.length}`);
      const writes: Write[] = [];
      const records: RecordOf<K>[] = [];
      for (const [i, stored] of current.entries()) {
        const next = changed[i] as unknown as Json;
        if (next === stored.value) {
          records.push(next as unknown as RecordOf<K>);
          continue;
        }
        if (next[def.stateField] !== stored.value[def.stateField]) {
          throw new Error(`${kind} ${stored.id}: the state field ${def.stateField} changes only by an event`);
        }
        const after = this.#persisted(def, next);
        writes.push({ kind, id: stored.id, expect: stored.version, before: stored.value, after });
        records.push(after as unknown as RecordOf<K>);
      }
      if (writes.length === 0) return { done: { kind: 'unchanged', records } };
      const commit = this.#observed(tenant, { writes });
      return { commit, result: () => this.#committed(tenant, commit, undefined, { kind: 'updated', records }) };
    }, EDIT_ATTEMPTS);
    if (outcome.ok) return outcome.value;
    if (outcome.reason === 'unique-conflict') return { kind: 'unique-conflict', index: outcome.index, key: outcome.key };
    return { kind: 'contended' };
  }

  /** Deletes an actor record (with what `also` adds), retrying on concurrent writes. */
  remove<K extends ActorKind>(tenant: Tenant, kind: K, id: number, options: RemoveOptions<K> = {}): Promise<RemoveResult> {
    return this.#lock.run(`${tenant}\u0000${kind}\u0000${id}`, async () => {
      const outcome = await retryCommit<RemoveResult>(this.#store, tenant, async () => {
        const stored = await this.#store.get<RecordOf<K>>(tenant, kind, id);
        if (stored === undefined) return { done: { kind: 'missing' } };
        if (options.when !== undefined && !options.when(stored.value)) return { done: { kind: 'kept' } };
        const also = options.also === undefined ? [] : await options.also(stored);
        const writes: Write[] = [{ kind, id, expect: stored.version, before: stored.value, after: null }, ...also];
        const commit = this.#observed(tenant, { writes });
        return { commit, result: () => this.#committed(tenant, commit, undefined, { kind: 'removed' }) };
      }, EDIT_ATTEMPTS);
      if (outcome.ok) return outcome.value;
      if (outcome.reason === 'contended') return { kind: 'contended' };
      throw new Error(`removing ${kind} ${id} failed: ${outcome.reason}`);
    });
  }

  async #send<K extends ActorKind>(
    tenant: Tenant, kind: K, id: number, event: EventOf<K>, options: SendMode<K>,
  ): Promise<SendResult<RecordOf<K>> | Stale> {
    const def = this.definition(kind);
    const dedupe = options.dedupe === undefined ? {} : { dedupe: options.dedupe };
    const known = options.known as Stored<Json> | undefined;
    if (known !== undefined && known.id !== id) throw new Error(`${kind} ${id}: the known record is ${kind} ${known.id}`);
    type Result = SendResult<RecordOf<K>> | Stale;
    const outcome = await retryCommit<Result>(this.#store, tenant, async (n): Promise<Attempt<Result>> => {
      const reused = n === 1 && known !== undefined
        ? await this.#step(tenant, def, this.#checked(def, known), event)
        : undefined;
      if (options.knownOnly === true && known !== undefined) {
        // decided on the known record only: its compare-and-set lost, or the event changes nothing on it
        if (n > 1) return { done: { kind: 'stale' } };
        if (reused === undefined) return { done: { kind: 'ignored', record: known.value as unknown as RecordOf<K> } };
      }
      let stored: Stored<Json>;
      let stepped: Stepped<K> | undefined;
      if (known !== undefined && reused !== undefined) {
        stored = known;
        stepped = reused;
      } else {
        // no known record, a retry, or one the event leaves as it is (it may be stale): read it
        const read = await this.#store.get<Json>(tenant, kind, id);
        if (read === undefined) return { done: { kind: 'missing' } };
        stored = read;
        stepped = await this.#step(tenant, def, this.#checked(def, stored), event);
      }
      if (stepped === undefined) {
        // remember that the effect was handled, so a redelivery after later changes cannot apply it
        if (options.dedupe !== undefined) {
          const marked = await this.#store.commit(tenant, { writes: [], dedupe: options.dedupe });
          if (!marked.ok && marked.reason === 'duplicate') return { done: { kind: 'duplicate' } };
        }
        return { done: { kind: 'ignored', record: stored.value as unknown as RecordOf<K> } };
      }
      const { writes, next } = stepped;
      const typed = stepped.record;
      const current = stored as unknown as Stored<RecordOf<K>>;
      if (options.also) writes.push(...(await options.also(typed, current)));
      // after `also`: what it decided (e.g. which actions a new assignment replaces) may shape the effects
      const extra = options.effects ? options.effects(typed, current) : [];
      const queued = await this.#follow(tenant, def, [...next.effects, ...extra], writes, n > 1);
      const effects = queued.map((e) => ({ ...e, eid: randomUUID() }));
      const commit = this.#observed(tenant, { writes, effects, ...dedupe });
      return {
        commit,
        result: (versions) => this.#committed(tenant, commit, { kind, id, event }, {
          kind: 'committed', record: typed, version: versions[0] ?? stored.version + 1, effectIds: effects.map((e) => e.eid),
        }),
      };
    }, SEND_ATTEMPTS);
    if (outcome.ok) return outcome.value;
    if (outcome.reason === 'duplicate') return { kind: 'duplicate' };
    if (outcome.reason === 'contended') return { kind: 'contended' };
    throw new Error(`unique conflict on ${outcome.kind}.${outcome.index} during a transition`);
  }

  /**
   * The writes (record and status-history entries) and effects of an event applied to another actor
   * read at `stored`, for the `also` and `effects` of a commit on one actor (a target's assignment
   * that starts its scheduled rollout action): compare-and-set on that actor's version too, so the
   * commit fails and retries when it changed. Undefined when the event changes nothing.
   */
  async transition<K extends ActorKind>(
    tenant: Tenant, kind: K, stored: Stored<RecordOf<K>>, event: EventOf<K>,
  ): Promise<{ readonly writes: readonly Write[]; readonly effects: readonly Effect[]; readonly record: RecordOf<K> } | undefined> {
    const def = this.definition(kind);
    this.#checkVersion(def, stored as unknown as Stored<Json>);
    const stepped = await this.#step(tenant, def, stored as unknown as Stored<Json>, event);
    return stepped === undefined ? undefined : { writes: stepped.writes, effects: stepped.next.effects, record: stepped.record };
  }

  /**
   * Events to several actors as the caller read them, stepped and committed together, all or none, with
   * `effects` besides their own: the rollout engine starts a batch of a group's actions in one commit
   * (rollout-actions.ts), so what it costs Redis per target is the records' writes, not a commit each. No
   * retry: a record that changed since it was read fails the whole commit ('stale') and the caller goes
   * on with one `send` per actor, which retries; an event that a record ignores writes nothing
   * ('ignored'). The steps' status entries take their ids from one reservation per entry kind.
   */
  async sendJointly(tenant: Tenant, events: readonly JointEvent[], effects: readonly Effect[] = []): Promise<JointResult> {
    const steps: JointStep[] = [];
    for (const [index, e] of events.entries()) {
      const def = this.definition(e.kind) as ActorDefinition<ActorKind>;
      const stored = this.#checked(def, e.stored as unknown as Stored<Json>);
      const next = step<Json>(def.machine, def.stateField, stored.value, e.event);
      if (!next.changed) return { kind: 'ignored', index };
      steps.push({ def, stored, next });
    }
    const firsts = await this.#entryIds(tenant, steps);
    const writes: Write[] = [];
    for (const [i, { def, stored, next }] of steps.entries()) writes.push(...this.#writesOf(def, stored, next, firsts[i] ?? 0).writes);
    const queued: Effect[] = [];
    for (const { def, next } of steps) queued.push(...(await this.#follow(tenant, def, next.effects, writes, false)));
    const commit = this.#observed(tenant, { writes, effects: [...queued, ...effects].map((e) => ({ ...e, eid: randomUUID() })) });
    const result = await this.#store.commit(tenant, commit);
    if (!result.ok) {
      if (result.reason === 'duplicate') throw new Error('sendJointly: a commit without a dedupe key answered duplicate');
      return { kind: 'stale' };
    }
    return this.#committed(tenant, commit, undefined, { kind: 'committed' });
  }

  /**
   * The status-entry ids of several steps from one reservation per entry kind: each step's first id
   * (0 for a step without entries).
   */
  async #entryIds(tenant: Tenant, steps: readonly JointStep[]): Promise<number[]> {
    const needed = new Map<string, number>();
    for (const { def, next } of steps) {
      const kind = def.entries?.kind;
      if (kind !== undefined && next.entries.length > 0) needed.set(kind, (needed.get(kind) ?? 0) + next.entries.length);
    }
    const ids = new Map<string, number>();
    await Promise.all([...needed].map(async ([kind, count]) => void ids.set(kind, await this.#store.nextIds(tenant, kind, count))));
    return steps.map(({ def, next }) => {
      const kind = def.entries?.kind;
      if (kind === undefined || next.entries.length === 0) return 0;
      const first = ids.get(kind) ?? 0;
      ids.set(kind, first + next.entries.length);
      return first;
    });
  }

  /**
   * The commit of a group of sends (`SendOptions.group`), as `sendJointly` steps them: each event is
   * stepped on its known record, with its own `effects`, the status entries of all take their ids from
   * one reservation per entry kind, and all are committed in one store commit, so a group of reports
   * costs the store one id reservation and one commit instead of one of each per report. Each keeps its
   * own outcome:
   * - an event its known record ignores, or that throws, is answered alone (`#send`, which reads
   *   afresh, or for a known-only send answers 'ignored') or fails alone; one whose writes touch a record
   *   another of the group writes (two actions of one target ending together) goes on alone, after the group;
   * - a lost compare-and-set names the record: the send that wrote it goes on alone (retrying from a
   *   fresh read; a known-only send is answered 'stale') and the rest is committed again; any other
   *   refusal sends each on alone;
   * - a store error fails the whole group, and the commit being atomic, nothing of it was written.
   * Sends to one actor never meet in a group: the actor's lock lets the next in only after its send
   * was answered.
   */
  async #commitGroup(tenant: Tenant, group: readonly Grouped[]): Promise<void> {
    const alone = (g: Grouped): void => {
      const options = g.knownOnly ? { known: g.known, knownOnly: true, effects: g.effects } : { effects: g.effects };
      g.resolve(this.#send(tenant, g.kind, g.id, g.event as EventOf<ActorKind>, options as SendMode<ActorKind>));
    };
    const steps: (JointStep & { readonly g: Grouped })[] = [];
    for (const g of group) {
      try {
        const def = this.definition(g.kind);
        const stored = this.#checked(def, g.known);
        const next = step<Json>(def.machine, def.stateField, stored.value, g.event);
        if (next.changed) steps.push({ g, def, stored, next });
        else alone(g);
      } catch (error) {
        g.reject(error);
      }
    }
    if (steps.length === 0) return;
    const firsts = await this.#entryIds(tenant, steps);
    const parts: GroupPart[] = [];
    const written = new Set<string>();
    const after: Grouped[] = [];
    for (const [i, { g, def, stored, next }] of steps.entries()) {
      try {
        const { writes, record } = this.#writesOf(def, stored, next, firsts[i] ?? 0);
        const extra = g.effects === undefined ? [] : g.effects(record as unknown as Json, stored);
        const queued = await this.#follow(tenant, def, [...next.effects, ...extra], writes, false);
        if (writes.some((w) => written.has(`${w.kind}\u0000${w.id}`))) {
          after.push(g);
          continue;
        }
        for (const w of writes) written.add(`${w.kind}\u0000${w.id}`);
        parts.push({ g, writes, record: record as unknown as Json, effects: queued.map((e) => ({ ...e, eid: randomUUID() })) });
      } catch (error) {
        g.reject(error);
      }
    }
    try {
      await this.#commitParts(tenant, parts, alone);
    } finally {
      for (const g of after) alone(g);
    }
  }

  /** Commits the parts of a group together, each one losing a compare-and-set taken out and sent alone. */
  async #commitParts(tenant: Tenant, parts: readonly GroupPart[], alone: (g: Grouped) => void): Promise<void> {
    let left = parts;
    while (left.length > 0) {
      const commit = this.#observed(tenant, { writes: left.flatMap((p) => p.writes), effects: left.flatMap((p) => p.effects) });
      const result = await this.#store.commit(tenant, commit);
      if (result.ok) {
        let at = 0;
        for (const { g, writes, record, effects } of left) {
          const version = result.versions[at] ?? g.known.version + 1;
          at += writes.length;
          g.resolve(this.#committed(tenant, { writes }, { kind: g.kind, id: g.id, event: g.event }, {
            kind: 'committed', record, version, effectIds: effects.map((e) => e.eid),
          }));
        }
        return;
      }
      const lost = result.reason === 'stale-version' ? left.find((p) => p.writes.some((w) => w.kind === result.kind && w.id === result.id)) : undefined;
      if (lost === undefined) {
        for (const p of left) alone(p.g);
        return;
      }
      if (lost.g.knownOnly) lost.g.resolve({ kind: 'stale' });
      else alone(lost.g);
      left = left.filter((p) => p !== lost);
    }
  }

  /**
   * The effects of a step that `def.follows` applies in the same commit: each `send` to a followed
   * kind is stepped on its receiver, whose writes join `writes` (its version compared and set with
   * the sender's) and whose own effects are queued. A receiver that is gone, or that the event leaves
   * as it is, gets nothing, as its handler would have done. The first attempt reads the receiver
   * through the client-side cache (a stale copy fails the compare-and-set; one that changes nothing is
   * read again from the store), retries from the store. Answers the effects left to queue.
   */
  async #follow<K extends ActorKind>(
    tenant: Tenant, def: ActorDefinition<K>, effects: readonly Effect[], writes: Write[], fresh: boolean,
  ): Promise<Effect[]> {
    const follows = def.follows;
    if (follows === undefined) return [...effects];
    const queued: Effect[] = [];
    for (const effect of effects) {
      if (effect.type !== 'send' || !follows.includes(effect.to.kind) || writes.some((w) => w.kind === effect.to.kind && w.id === effect.to.id)) {
        queued.push(effect);
        continue;
      }
      const { kind, id } = effect.to;
      const receiver = this.definition(kind);
      const cached = fresh ? undefined : await this.#store.cached.get<Json>(tenant, kind, id);
      let stepped = cached === undefined ? undefined : await this.#step(tenant, receiver, this.#checked(receiver, cached), effect.event);
      if (stepped === undefined) {
        const stored = await this.#store.get<Json>(tenant, kind, id);
        stepped = stored === undefined ? undefined : await this.#step(tenant, receiver, this.#checked(receiver, stored), effect.event);
      }
      if (stepped === undefined) continue;
      writes.push(...stepped.writes);
      queued.push(...stepped.next.effects);
    }
    return queued;
  }

  async #step<K extends ActorKind>(
    tenant: Tenant, def: ActorDefinition<K>, stored: Stored<Json>, event: EventOf<K>,
  ): Promise<Stepped<K> | undefined> {
    const next = step<Json>(def.machine, def.stateField, stored.value, event);
    if (!next.changed) return undefined;
    const entryKind = def.entries?.kind;
    const count = next.entries.length;
    const first = entryKind !== undefined && count > 0 ? await this.#store.nextIds(tenant, entryKind, count) : 0;
    return { ...this.#writesOf(def, stored, next, first), next };
  }

  /** The writes of a step: the record, stamped, and its status entries with ids from `first` on. */
  #writesOf<K extends ActorKind>(
    def: ActorDefinition<K>, stored: Stored<Json>, next: Step<Json>, first: number,
  ): { readonly writes: Write[]; readonly record: RecordOf<K> } {
    const record = this.#persisted(def, next.record);
    const writes: Write[] = [{ kind: def.kind, id: stored.id, expect: stored.version, before: stored.value, after: record }];
    const entries = def.entries;
    if (entries !== undefined) {
      next.entries.forEach((params, i) => {
        const entry = entries.build(record as unknown as RecordOf<K>, params, first + i);
        writes.push({ kind: entries.kind, id: first + i, expect: 0, fresh: true, after: entry });
      });
    }
    return { writes, record: record as unknown as RecordOf<K> };
  }

  /**
   * The commit with the counters its actor changes move (the kinds' `counters`) and the effects the
   * observers derive from them (not among a send's `effectIds`).
   */
  #observed(tenant: Tenant, commit: Commit): Commit {
    const changes = this.#changes(commit.writes);
    const counters: CounterIncrement[] = [];
    for (const change of changes) {
      const count = (this.#defs[change.kind] as ActorDefinition<ActorKind>).counters;
      if (count !== undefined) counters.push(...count(change.before, change.after));
    }
    if (changes.length === 0) return commit;
    const derived = this.#observers.flatMap((observe) => observe(tenant, changes));
    const journal = journalOf(changes);
    if (derived.length === 0 && counters.length === 0 && journal.length === 0) return commit;
    return {
      ...commit,
      ...(journal.length === 0 ? {} : { journal }),
      ...(derived.length === 0 ? {} : { effects: [...(commit.effects ?? []), ...derived.map((e) => ({ ...e, eid: randomUUID() }))] }),
      ...(counters.length === 0 ? {} : { counters: [...(commit.counters ?? []), ...counters] }),
    };
  }

  #changes(writes: readonly Write[]): ActorChange[] {
    const changes: ActorChange[] = [];
    for (const w of writes) {
      if (Object.hasOwn(this.#defs, w.kind)) changes.push({ kind: w.kind, id: w.id, before: w.before, after: w.after } as ActorChange);
    }
    return changes;
  }

  /** Tells the listener of a commit the store accepted, then answers `result`; a listener's failure never fails the commit. */
  #committed<T>(tenant: Tenant, commit: Commit, cause: CommitCause | undefined, result: T): T {
    const changes = this.#listener === undefined ? [] : this.#changes(commit.writes);
    try {
      if (changes.length > 0) this.#listener?.(tenant, changes, commit.writes, cause);
    } catch {
      // the commit stands; the listener only reports it
    }
    return result;
  }

  #checked(def: { readonly kind: string; readonly machineVersion: number }, stored: Stored<Json>): Stored<Json> {
    this.#checkVersion(def, stored);
    return stored;
  }

  #checkVersion(def: { readonly kind: string; readonly machineVersion: number }, stored: Stored<Json>): void {
    const stamped = stored.value[MACHINE_VERSION_FIELD];
    if (typeof stamped === 'number' && stamped > def.machineVersion) {
      throw new Error(`${def.kind} ${stored.id} was written by machine version ${stamped}; this server knows ${def.machineVersion}`);
    }
  }

  #persisted<K extends ActorKind>(def: ActorDefinition<K>, record: Json): Json {
    const finalized = def.finalize ? (def.finalize(record as unknown as RecordOf<K>) as unknown as Json) : record;
    return { ...finalized, [MACHINE_VERSION_FIELD]: def.machineVersion };
  }
}
