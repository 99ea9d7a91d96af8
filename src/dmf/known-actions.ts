/**
 * The open actions this connector last committed a status report for, as committed (record and
 * version), so that the next report of the same action (a gateway sends DOWNLOAD, RUNNING, ...,
 * FINISHED in a row) is decided without reading the action first. Only a hint: the report commits
 * only if the action is still at that version when the actor runtime reads it (device-ops.ts), else
 * it is decided again on a fresh read. Bounded (least recently used out); closed actions leave.
 */
import type { ActionRecord } from '../domain/action.js';
import type { Stored } from '../store/port.js';

/** Enough for every device of a few busy gateways reporting at once; an entry is one action record. */
const CAPACITY = 4096;

export class KnownActions {
  readonly #entries = new Map<string, Stored<ActionRecord>>();

  get(tenant: string, id: number): Stored<ActionRecord> | undefined {
    return this.#entries.get(key(tenant, id));
  }

  /** The action as a commit left it: kept while it is open, forgotten when it closed. */
  committed(tenant: string, record: ActionRecord, version: number): void {
    const k = key(tenant, record.id);
    this.#entries.delete(k);
    if (!record.active) return;
    this.#entries.set(k, { id: record.id, version, value: record });
    if (this.#entries.size > CAPACITY) this.#entries.delete(this.#entries.keys().next().value as string);
  }

  forget(tenant: string, id: number): void {
    this.#entries.delete(key(tenant, id));
  }
}

function key(tenant: string, id: number): string {
  return `${tenant}\u0000${id}`;
}
