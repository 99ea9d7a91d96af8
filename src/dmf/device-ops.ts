/**
 * What DMF messages do to targets and actions: the one place where the DMF connector calls into the
 * actor runtime and the device operations DDI uses (registration, attributes, status reports through
 * the action machine, auto-confirmation), so DMF devices follow exactly the rules DDI devices do.
 * @see reference/hawkbit-api.md §9 (inbound messages), §4.2-4.9
 */
import { activateAutoConfirm, deactivateAutoConfirm, type AutoConfirmDeps } from '../actors/auto-confirm.js';
import { edited } from '../actors/outcomes.js';
import { deleteTarget, type RemovalDeps } from '../actors/removal.js';
import type { ActorEditor } from '../actors/roles.js';
import { ACTION, SERVER_MESSAGE_PREFIX, type ActionRecord } from '../domain/action.js';
import type { ActionEvent } from '../domain/action.events.js';
import type { DmfEffect } from '../domain/effects.js';
import { concurrent } from '../domain/errors.js';
import { isValidControllerId } from '../domain/ids.js';
import type { Quotas } from '../domain/quotas.js';
import { TARGET, type TargetRecord } from '../domain/target.js';
import { TARGET_TYPE } from '../domain/targeting.js';
import { maintenanceState } from '../device/active-actions.js';
import { updateAttributes, type AttributeMode } from '../device/attributes.js';
import { checkShownAttributes, type InstallCheckDeps } from '../device/install-verification.js';
import { findTarget, registerController } from '../device/registration.js';
import { checkEntryQuota, checkMessageQuota } from '../device/reports.js';
import type { Store, Stored } from '../store/port.js';
import type { TenantConfigService } from '../tenancy/tenant-config-service.js';
import { statusEvent } from './action-status.js';
import { KnownActions } from './known-actions.js';
import { DMF_FALLBACK_REMARK, type ActionUpdateStatusBody, type AttributeUpdateBody } from './protocol.js';

/** What the device operations read and write through (the shared services provide it all). */
export interface DeviceOpsDeps extends AutoConfirmDeps, RemovalDeps, InstallCheckDeps {
  readonly store: Pick<Store, 'get' | 'getMany' | 'cached' | 'members' | 'lookup' | 'nextIds' | 'recordPolls' | 'forgetPolls'>;
  readonly runtime: ActorEditor;
  readonly quotas: Pick<Quotas, 'maxAttributeEntriesPerTarget' | 'maxMessagesPerActionStatus' | 'maxStatusEntriesPerAction'>;
  readonly tenantConfig: Pick<TenantConfigService, 'view'>;
}

/** A message peregrine refuses: rejected without requeue, so it lands in the dead-letter queue. */
export class DmfRejection extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DmfRejection';
  }
}

const NAME_MAX = 128; // the target name column (Management API limit)

interface ThingRegistration {
  readonly address: string;
  readonly name: string | null;
  /** Target type name; '' removes the type of an existing target. */
  readonly typeName: string | null;
  readonly attributes: AttributeUpdateBody | null;
}

export class DeviceOps {
  readonly #deps: DeviceOpsDeps;
  readonly #log: { error(obj: object, msg: string): void };
  readonly #known = new KnownActions();

  constructor(deps: DeviceOpsDeps, log: { error(obj: object, msg: string): void }) {
    this.#deps = deps;
    this.#log = log;
  }

  /**
   * THING_CREATED: registers the target (plug and play, `registered`) or updates the known one: its
   * address, and its name and type when given; then its attributes. Records the contact as a poll.
   */
  async registerThing(tenant: string, thingId: string, reg: ThingRegistration, now: number): Promise<TargetRecord> {
    checkThingId(thingId);
    if (reg.name !== null && reg.name.length > NAME_MAX) throw new DmfRejection(`name must be at most ${NAME_MAX} characters, got ${reg.name.length}`);
    const { store, runtime } = this.#deps;
    const typeId = await this.#targetType(tenant, thingId, reg.typeName);
    const name = reg.name === null || reg.name.trim() === '' ? null : reg.name;
    const existing = await findTarget(store, tenant, thingId);
    let target = await registerController(this.#deps, tenant, thingId, existing,
      { address: reg.address, name, targetType: typeof typeId === 'number' ? typeId : null }, now);
    if (existing !== undefined) {
      const result = await runtime.update(tenant, TARGET, target.id, (cur) => {
        const targetType = typeId === 'remove' ? null : typeId ?? cur.targetType;
        if (cur.address === reg.address && (name === null || cur.name === name) && targetType === cur.targetType) return cur;
        return { ...cur, address: reg.address, name: name ?? cur.name, targetType, lastModifiedAt: now };
      });
      target = edited(result, 'Target', thingId)[0] ?? target;
    }
    if (reg.attributes !== null) await this.updateAttributes(tenant, thingId, reg.attributes, now, target);
    await store.recordPolls(tenant, [{ id: target.id, at: now, address: reg.address }]);
    return target;
  }

  /** THING_REMOVED: deletes the target with its actions (THING_DELETED follows, as for any deletion). */
  async removeThing(tenant: string, thingId: string): Promise<void> {
    checkThingId(thingId);
    const target = await this.#target(tenant, thingId);
    await deleteTarget(this.#deps, tenant, target.id, thingId);
  }

  /**
   * UPDATE_ATTRIBUTES (also the attributeUpdate of THING_CREATED). As DDI configData: with
   * `verifyInstall.attribute`, a merge or replace that names the version decides the target's install
   * waiting for confirmation (install-verification.ts).
   */
  async updateAttributes(tenant: string, thingId: string, body: AttributeUpdateBody, now: number, known?: TargetRecord): Promise<void> {
    checkThingId(thingId);
    const target = known ?? (await this.#target(tenant, thingId));
    const mode = (body.mode ?? 'MERGE').toLowerCase() as AttributeMode;
    await updateAttributes(this.#deps, tenant, target.id, thingId, mode, body.attributes);
    if (target.verifyAction != null && mode !== 'remove') await checkShownAttributes(this.#deps, tenant, target, body.attributes, now);
  }

  /** UPDATE_AUTO_CONFIRM. */
  async setAutoConfirm(
    tenant: string, thingId: string, body: { enabled: boolean; initiator: string | null; remark: string | null }, now: number,
  ): Promise<void> {
    checkThingId(thingId);
    const target = await this.#target(tenant, thingId);
    if (!body.enabled) return deactivateAutoConfirm(this.#deps, tenant, target.id);
    const options = { initiator: body.initiator, remark: body.remark, fallbackRemark: DMF_FALLBACK_REMARK };
    await activateAutoConfirm(this.#deps, tenant, target.id, options, now);
  }

  /**
   * UPDATE_ACTION_STATUS through the action machine, with DDI's quota checks. When the report leaves
   * the action closed, or its maintenance window is open, the device is sent what to do next (in the
   * same commit, through the effects queue). A report the machine ignores (a repeated RETRIEVED) is a no-op.
   * An action this connector committed a report for is decided and stepped without reading it
   * (KnownActions, handed to the runtime as a known-only send), and committed only if it is still at
   * that version; otherwise, and for every refusal, the report is decided again on a fresh read, which
   * is the one way the outcome is ever decided. The action read here is the runtime's `known` too.
   * Both sends are grouped: reports to different actions of the tenant that arrive together commit
   * in one store commit (the runtime's group commit), each with its own outcome.
   */
  async reportStatus(
    tenant: string, thingId: string | null, body: ActionUpdateStatusBody, correlationId: string | null, now: number,
  ): Promise<void> {
    const known = this.#known.get(tenant, body.actionId);
    if (known !== undefined && (await this.#reportOnKnown(tenant, thingId, body, correlationId, now, known))) return;
    const stored = await this.#deps.store.get<ActionRecord>(tenant, ACTION, body.actionId);
    if (stored === undefined) throw new DmfRejection(`Got intermediate notification about action ${body.actionId} but action does not exist`);
    const a = stored.value;
    const event = await this.#decide(tenant, thingId, body, correlationId, now, a);
    const r = await this.#deps.runtime.send(tenant, ACTION, a.id, event, { known: stored, effects: nextFor(a.targetId, now), group: true });
    if (r.kind === 'committed') this.#known.committed(tenant, r.record, r.version);
    else if (r.kind === 'missing') throw new DmfRejection(`action ${a.id} does not exist`);
    else if (r.kind === 'contended') throw concurrent('action', a.id);
  }

  /** The report on the action as last committed here: true when committed; false when it must be decided on a fresh read. */
  async #reportOnKnown(
    tenant: string, thingId: string | null, body: ActionUpdateStatusBody, correlationId: string | null, now: number,
    known: Stored<ActionRecord>,
  ): Promise<boolean> {
    let event: ActionEvent;
    try {
      event = await this.#decide(tenant, thingId, body, correlationId, now, known.value);
    } catch {
      return false; // refused on what may be an old copy: the fresh read decides
    }
    const r = await this.#deps.runtime.send(tenant, ACTION, known.id, event, {
      known, knownOnly: true, effects: nextFor(known.value.targetId, now), group: true,
    });
    if (r.kind === 'committed') {
      this.#known.committed(tenant, r.record, r.version);
      return true;
    }
    this.#known.forget(tenant, known.id);
    return false; // stale or ignored on the copy: nothing written, decided again on a fresh read
  }

  /** The action machine's event for the report on `a`, after hawkBit's checks; throws when refused. */
  async #decide(
    tenant: string, thingId: string | null, body: ActionUpdateStatusBody, correlationId: string | null, now: number, a: ActionRecord,
  ): Promise<ActionEvent> {
    const deps = this.#deps;
    if (thingId !== null && a.controllerId.toLowerCase() !== thingId.toLowerCase()) {
      throw new DmfRejection(`action ${a.id} belongs to thing '${a.controllerId}', not '${thingId}'`);
    }
    const details = correlationId === null ? body.message : [...body.message, `${SERVER_MESSAGE_PREFIX}DMF message correlation-id ${correlationId}`];
    checkMessageQuota(deps, details.length + (body.code === null ? 0 : 1));
    const flow = (await deps.tenantConfig.view(tenant)).bool('user.confirmation.flow.enabled');
    const decision = statusEvent(body.actionStatus, a, { at: now, timestamp: body.timestamp ?? now, code: body.code, details }, flow);
    if (!decision.ok) throw new DmfRejection(decision.reason);
    if (!decision.final) checkEntryQuota(deps, a);
    return decision.event;
  }

  async #target(tenant: string, thingId: string): Promise<TargetRecord> {
    const target = await findTarget(this.#deps.store, tenant, thingId);
    if (target === undefined) throw new DmfRejection(`thing '${thingId}' is not registered`);
    return target;
  }

  /** The id of the named target type; 'remove' for ''; undefined when not given, or unknown (logged, as hawkBit does). */
  async #targetType(tenant: string, thingId: string, name: string | null): Promise<number | 'remove' | undefined> {
    if (name === null) return undefined;
    if (name.trim() === '') return 'remove';
    const id = await this.#deps.store.lookup(tenant, TARGET_TYPE, 'name', name.toLowerCase());
    if (id === undefined) this.#log.error({ tenant, thingId, type: name }, 'DMF: THING_CREATED names a target type that does not exist; the type is left as it is');
    return id;
  }
}

/** hawkBit re-sends the device its current action after a report that closed one, or inside a maintenance window. */
function nextFor(targetId: number, now: number): (record: ActionRecord) => DmfEffect[] {
  return (record) => (!record.active || maintenanceState(record, now)?.available === true ? [{ type: 'dmf.next', targetId }] : []);
}

function checkThingId(thingId: string): void {
  if (!isValidControllerId(thingId)) throw new DmfRejection(`thingId must be 1-256 characters without whitespace, control characters or '/', got ${JSON.stringify(thingId.slice(0, 64))}`);
}
