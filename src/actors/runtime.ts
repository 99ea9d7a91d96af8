import { randomUUID } from 'node:crypto';
import { transition } from 'xstate';
import type { AnyStateMachine, EventObject } from 'xstate';
import type { Effect, Store, Stored, Tenant, Write } from '../store/port.js';
import { MACHINE_VERSION_FIELD } from './definition.js';
import { KeyedLock } from './keyed-lock.js';
import type { ActorDefinition } from './definition.js';

export type SendResult<R> =
  | { readonly kind: 'committed'; readonly record: R; readonly version: number; readonly effectIds: readonly string[] }
  /** No transition was enabled for the event: nothing written. */
  | { readonly kind: 'ignored'; readonly record: R }
  | { readonly kind: 'missing' }
  /** The dedupe key was already used: the event had been applied before. */
  | { readonly kind: 'duplicate' }
  /** Lost the compare-and-set more often than the retry budget allows. */
  | { readonly kind: 'contended' };

export interface SendOptions {
  /** Apply at most once for this key (the id of the effect being handled). */
  readonly dedupe?: string;
  /** Extra writes committed atomically with the transition, computed from the next record. */
  readonly also?: (next: unknown, current: Stored<unknown>) => Write[] | Promise<Write[]>;
  /** Extra effects committed with the transition (e.g. "cancel these obsolete actions"). */
  readonly effects?: (next: unknown, current: Stored<unknown>) => Effect[];
}

const MAX_ATTEMPTS = 40;

/** Jittered wait before retrying a lost compare-and-set, growing with the attempt (ms). */
export function retryDelay(attempt: number): number {
  return attempt < 2 ? 0 : Math.random() * Math.min(50, 2 ** Math.min(attempt, 6));
}

/** Any machine event: a type and JSON fields. */
export type ActorEvent = EventObject & { readonly [field: string]: unknown };

interface Outputs {
  readonly effects: Effect[];
  readonly entries: unknown[];
}

/**
 * The actor runtime: load the record (the snapshot), compute the next one with XState's pure
 * `transition`, commit it with compare-and-set together with the effects it emitted and the
 * records its `entry` outputs describe, all in one atomic store commit. A lost compare-and-set
 * reloads and retries. Effects are delivered by the EffectDispatcher through the durable queue.
 */
export class ActorRuntime {
  readonly #store: Store;
  readonly #defs: ReadonlyMap<string, ActorDefinition>;
  readonly #lock = new KeyedLock();

  constructor(store: Store, definitions: readonly ActorDefinition[]) {
    this.#store = store;
    this.#defs = new Map(definitions.map((d) => [d.kind, d]));
  }

  definition(kind: string): ActorDefinition {
    const def = this.#defs.get(kind);
    if (!def) throw new Error(`no actor definition for kind '${kind}'`);
    return def;
  }

  /** Persists a new actor in its given state (no transition runs). */
  async create<R extends { readonly id: number }>(tenant: Tenant, kind: string, record: R, also: Write[] = []): Promise<
    { ok: true } | { ok: false; reason: 'exists' | 'unique-conflict'; index?: string }
  > {
    const def = this.definition(kind);
    const value = { ...(def.finalize ? def.finalize(record as never) : record), [MACHINE_VERSION_FIELD]: def.machineVersion };
    const result = await this.#store.commit(tenant, { writes: [{ kind, id: record.id, expect: 0, after: value }, ...also] });
    if (result.ok) return { ok: true };
    if (result.reason === 'unique-conflict') return { ok: false, reason: 'unique-conflict', index: result.index };
    return { ok: false, reason: 'exists' };
  }

  send<R extends { readonly id: number }>(
    tenant: Tenant, kind: string, id: number, event: ActorEvent, options: SendOptions = {},
  ): Promise<SendResult<R>> {
    return this.#lock.run(`${tenant}\u0000${kind}\u0000${id}`, () => this.#send<R>(tenant, kind, id, event, options));
  }

  async #send<R extends { readonly id: number }>(
    tenant: Tenant, kind: string, id: number, event: ActorEvent, options: SendOptions,
  ): Promise<SendResult<R>> {
    const def = this.definition(kind);
    for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
      const stored = await this.#store.get<Record<string, unknown>>(tenant, kind, id);
      if (stored === undefined) return { kind: 'missing' };
      const stamped = stored.value[MACHINE_VERSION_FIELD];
      if (typeof stamped === 'number' && stamped > def.machineVersion) {
        throw new Error(`${kind} ${id} was written by machine version ${stamped}; this server knows ${def.machineVersion}`);
      }
      const step = this.#step(def, stored.value, event);
      if (step === undefined) {
        // remember that the effect was handled, so a redelivery after later changes cannot apply it
        if (options.dedupe) {
          const marked = await this.#store.commit(tenant, { writes: [], dedupe: options.dedupe });
          if (!marked.ok && marked.reason === 'duplicate') return { kind: 'duplicate' };
        }
        return { kind: 'ignored', record: stored.value as unknown as R };
      }
      const writes: Write[] = [{ kind, id, expect: stored.version, before: stored.value, after: step.next }];
      if (def.entries && step.outputs.entries.length > 0) {
        const entries = def.entries;
        const first = await this.#store.nextIds(tenant, entries.kind, step.outputs.entries.length);
        step.outputs.entries.forEach((params, i) => {
          writes.push({ kind: entries.kind, id: first + i, expect: 0, after: entries.build(step.next as never, params, first + i) });
        });
      }
      if (options.also) writes.push(...(await options.also(step.next, stored)));
      // after `also`: what it decided (e.g. which actions a new assignment replaces) may shape the effects
      const extra = options.effects ? options.effects(step.next, stored) : [];
      const effects = [...step.outputs.effects, ...extra].map((e) => ({ ...e, eid: randomUUID() }));
      const result = await this.#store.commit(tenant, { writes, effects, ...(options.dedupe ? { dedupe: options.dedupe } : {}) });
      if (result.ok) {
        return { kind: 'committed', record: step.next as unknown as R, version: result.versions[0] ?? stored.version + 1, effectIds: effects.map((e) => e.eid) };
      }
      if (result.reason === 'duplicate') return { kind: 'duplicate' };
      if (result.reason === 'unique-conflict') throw new Error(`unique conflict on ${result.kind}.${result.index} during a transition`);
      // stale version: someone else committed first; reload and decide again
      const wait = retryDelay(attempt);
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    }
    return { kind: 'contended' };
  }

  /** The pure part: hydrate, transition, collect outputs. Undefined when nothing changed. */
  #step(def: ActorDefinition, value: Record<string, unknown>, event: EventObject): { next: Record<string, unknown>; outputs: Outputs } | undefined {
    const machine: AnyStateMachine = def.machine;
    const current = machine.resolveState({ value: value[def.stateField] as string, context: value });
    const [next, actions] = transition(machine, current, event);
    if (next === current || actions.length === 0 && next.value === current.value && next.context === current.context) return undefined;
    const outputs: Outputs = { effects: [], entries: [] };
    for (const action of actions as readonly { type: string; params?: unknown }[]) {
      if (action.params === undefined) continue;
      if (action.type === 'effect') outputs.effects.push(action.params as Effect);
      else if (action.type === 'entry') outputs.entries.push(action.params);
    }
    let record = { ...(next.context as Record<string, unknown>), [def.stateField]: next.value, [MACHINE_VERSION_FIELD]: def.machineVersion };
    if (def.finalize) record = def.finalize(record as never) as unknown as typeof record;
    return { next: record, outputs };
  }
}
